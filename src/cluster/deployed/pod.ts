/**
 * What `scaffold run --as-deployed` reads from the rendered config/default: the manager's Deployment and container,
 * the objects its pod needs to exist before it starts (namespace, ServiceAccount, RBAC, CRDs), and its probes.
 */
import { ClusterError } from '../errors.js';
import { groupOf, isCRD, type ManifestObject } from '../objects.js';
import type { ContainerSpec } from '../container.js';
import { parseQuantity } from '../container.js';

/** An httpGet probe of the container (core/v1 Probe), with the kubelet's defaults filled in. */
export interface HttpProbe {
  path: string;
  /** The container port: a number, or the name of one of the container's ports. */
  port: number | string;
  initialDelaySeconds: number;
  periodSeconds: number;
  timeoutSeconds: number;
  failureThreshold: number;
  successThreshold: number;
}

/** The manager's container as config/manager declares it. */
export interface ManagerContainer extends ContainerSpec {
  command?: string[];
  args?: string[];
  ports?: Array<{ name?: string; containerPort: number }>;
  livenessProbe?: { httpGet?: { path?: string; port: number | string } } & Partial<HttpProbe>;
  readinessProbe?: { httpGet?: { path?: string; port: number | string } } & Partial<HttpProbe>;
}

/** The pod `--as-deployed` imitates. */
export interface PodPlan {
  deployment: string;
  namespace: string;
  serviceAccountName: string;
  container: ManagerContainer;
  terminationGracePeriodSeconds: number;
  memoryLimitBytes?: number;
  cpuLimit?: string;
  liveness?: HttpProbe;
  readiness?: HttpProbe;
  /** Namespace, ServiceAccount, RBAC and CRDs, in the rendered order. */
  prerequisites: ManifestObject[];
  /** The ClusterRole granting GET /metrics (kubebuilder's metrics-reader), if the project has one. */
  metricsReaderRole?: string;
}

const RBAC_KINDS = new Set(['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding']);

function isPrerequisite(o: ManifestObject): boolean {
  if (o.apiVersion === 'v1' && (o.kind === 'Namespace' || o.kind === 'ServiceAccount')) return true;
  if (groupOf(o.apiVersion) === 'rbac.authorization.k8s.io' && RBAC_KINDS.has(o.kind)) return true;
  return isCRD(o);
}

function probe(spec: ManagerContainer['livenessProbe']): HttpProbe | undefined {
  if (!spec?.httpGet) return undefined;
  return {
    path: spec.httpGet.path ?? '/',
    port: spec.httpGet.port,
    initialDelaySeconds: spec.initialDelaySeconds ?? 0,
    periodSeconds: spec.periodSeconds ?? 10,
    timeoutSeconds: spec.timeoutSeconds ?? 1,
    failureThreshold: spec.failureThreshold ?? 3,
    successThreshold: spec.successThreshold ?? 1,
  };
}

interface DeploymentObject extends ManifestObject {
  spec?: {
    template?: {
      metadata?: { labels?: Record<string, string> };
      spec?: { containers?: ManagerContainer[]; serviceAccountName?: string; terminationGracePeriodSeconds?: number };
    };
  };
}

/** Finds the manager's Deployment in the rendered config/default and what its pod needs. */
export function planPod(rendered: ManifestObject[], source: string): PodPlan {
  const deployments = rendered.filter(
    (o): o is DeploymentObject => o.kind === 'Deployment' && o.apiVersion === 'apps/v1',
  );
  const deployment =
    deployments.find((d) => d.spec?.template?.metadata?.labels?.['control-plane'] === 'controller-manager') ??
    (deployments.length === 1 ? deployments[0] : undefined);
  if (!deployment) {
    throw new ClusterError(
      deployments.length === 0
        ? `${source} renders no Deployment; the manager's Deployment comes from config/manager (check that config/default's kustomization.yaml lists ../manager)`
        : `${source} renders ${deployments.length} Deployments and none is labelled control-plane: controller-manager; label the manager's pod template with it`,
    );
  }
  const pod = deployment.spec?.template?.spec;
  const containers = pod?.containers ?? [];
  const container = containers.find((c) => c.name === 'manager') ?? containers[0];
  if (!container) throw new ClusterError(`Deployment ${deployment.metadata.name} in ${source} has no containers`);
  const namespace = deployment.metadata.namespace;
  if (!namespace)
    throw new ClusterError(
      `Deployment ${deployment.metadata.name} in ${source} has no namespace; config/default's kustomization.yaml sets one with namespace:`,
    );
  const limits = container.resources?.limits ?? {};
  const metricsReader = rendered.find(
    (o) =>
      o.kind === 'ClusterRole' &&
      ((o as { rules?: Array<{ nonResourceURLs?: string[] }> }).rules ?? []).some((r) =>
        r.nonResourceURLs?.includes('/metrics'),
      ),
  );
  return {
    deployment: deployment.metadata.name,
    namespace,
    serviceAccountName: pod?.serviceAccountName ?? 'default',
    container,
    terminationGracePeriodSeconds: pod?.terminationGracePeriodSeconds ?? 30,
    memoryLimitBytes: limits.memory !== undefined ? parseQuantity(limits.memory) : undefined,
    cpuLimit: limits.cpu,
    liveness: probe(container.livenessProbe),
    readiness: probe(container.readinessProbe),
    prerequisites: rendered.filter(isPrerequisite),
    metricsReaderRole: metricsReader?.metadata.name,
  };
}

/** The number of a probe's port: itself, or the containerPort of the container's port with that name. */
export function probePort(plan: PodPlan, port: number | string): number {
  if (typeof port === 'number') return port;
  const named = plan.container.ports?.find((p) => p.name === port);
  if (named) return named.containerPort;
  if (/^\d+$/.test(port)) return Number(port);
  throw new ClusterError(
    `a probe of container ${plan.container.name} uses port "${port}", which is not one of its named ports`,
  );
}
