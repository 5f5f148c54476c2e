/** The sample operator the integration tests run: an AppService owns a Deployment and a Service made from its spec. */
import type { V1Deployment, V1Service } from '@kubernetes/client-node';
import { Deployments, Services } from '../../../src/runtime/rest/index.js';
import {
  createMergePatch,
  createOrUpdate,
  reconcileWithFinalizer,
  setControllerReference,
  setStatusCondition,
} from '../../../src/runtime/client/index.js';
import {
  defineResource,
  isNotFound,
  newControllerManagedBy,
  type Client,
  type Condition,
  type Manager,
  type ObjectMeta,
  type ReconcileContext,
  type Reconciler,
  type Request,
  type Result,
} from '../../../src/runtime/index.js';
import { testCRD } from '../../support/crd.js';

export interface AppService {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  spec: { replicas: number; image: string; port?: number };
  status?: { availableReplicas?: number; observedGeneration?: number; conditions?: Condition[] };
}

export const AppServices = defineResource<AppService>({
  group: 'apps.kubescaffold.io',
  version: 'v1',
  kind: 'AppService',
  plural: 'appservices',
  namespaced: true,
});

export const APPSERVICE_CRD = testCRD({
  group: 'apps.kubescaffold.io',
  kind: 'AppService',
  versions: [
    {
      name: 'v1',
      required: ['replicas', 'image'],
      spec: {
        replicas: { type: 'integer', format: 'int32' },
        image: { type: 'string' },
        port: { type: 'integer', format: 'int32' },
      },
      status: {
        availableReplicas: { type: 'integer', format: 'int32' },
        observedGeneration: { type: 'integer', format: 'int64' },
        conditions: { type: 'array', items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      },
    },
  ],
});

export const FINALIZER = 'apps.kubescaffold.io/cleanup';

export class AppServiceReconciler implements Reconciler {
  readonly reconciled: Request[] = [];
  readonly cleanedUp: string[] = [];

  constructor(private readonly client: Client) {}

  async reconcile(req: Request, ctx: ReconcileContext): Promise<Result> {
    this.reconciled.push(req);
    let app: AppService;
    try {
      app = await this.client.get(AppServices, req);
    } catch (e) {
      if (isNotFound(e)) return {};
      throw e;
    }
    const result = await reconcileWithFinalizer(this.client, {
      resource: AppServices,
      object: app,
      finalizer: FINALIZER,
      apply: (a) => this.apply(a, ctx),
      cleanup: async (a) => {
        this.cleanedUp.push(`${a.metadata.namespace}/${a.metadata.name}`);
      },
    });
    return result ?? {};
  }

  private async apply(app: AppService, ctx: ReconcileContext): Promise<Result> {
    const labels = { app: app.metadata.name ?? '' };
    const meta = { name: app.metadata.name, namespace: app.metadata.namespace };
    const dep: V1Deployment = { metadata: { ...meta } };
    await createOrUpdate(this.client, Deployments, dep, (d) => {
      d.spec ??= {
        selector: { matchLabels: labels },
        template: { metadata: { labels }, spec: { containers: [{ name: 'app', image: app.spec.image }] } },
      };
      d.spec.replicas = app.spec.replicas;
      const c = d.spec.template.spec?.containers[0];
      if (c) c.image = app.spec.image;
      setControllerReference(app, d, { ownerType: AppServices });
    });
    const svc: V1Service = { metadata: { ...meta } };
    await createOrUpdate(this.client, Services, svc, (s) => {
      s.spec ??= { selector: labels, ports: [] };
      s.spec.ports = [{ name: 'http', port: app.spec.port ?? 80 }];
      setControllerReference(app, s, { ownerType: AppServices });
    });
    const status = structuredClone(app.status ?? {});
    status.availableReplicas = dep.status?.availableReplicas ?? 0;
    status.observedGeneration = app.metadata.generation;
    status.conditions ??= [];
    setStatusCondition(status.conditions, {
      type: 'Available',
      status: status.availableReplicas >= app.spec.replicas ? 'True' : 'False',
      reason: 'Reconciled',
      message: `${status.availableReplicas}/${app.spec.replicas} replicas available`,
      observedGeneration: app.metadata.generation,
    });
    const patch = createMergePatch({ status: app.status ?? {} }, { status });
    if (Object.keys(patch as object).length > 0) {
      await this.client
        .status()
        .patch(AppServices, { namespace: meta.namespace, name: meta.name ?? '' }, patch, { type: 'merge' });
      ctx.log.debug('status updated');
    }
    return {};
  }

  setupWithManager(mgr: Manager, name = 'appservice'): void {
    newControllerManagedBy(mgr).for(AppServices).owns(Deployments).owns(Services).named(name).complete(this);
  }
}
