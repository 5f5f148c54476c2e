/*
Copyright 2026 The trust-manager port's authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

import {
  isNotFound,
  newControllerManagedBy,
  type Client,
  type Condition,
  type KubeObject,
  type Manager,
  type Resource,
  type ReconcileContext,
  type Reconciler,
  type Request,
  type Result,
} from '@kubescaffold/runtime';
import type { InformerCache } from '@kubescaffold/runtime/cache';
import {
  KindSource,
  enqueueRequestForOwner,
  enqueueRequestsFromMapFunc,
  objectPredicate,
} from '@kubescaffold/runtime/controller';
import type { EventsRecorder } from '@kubescaffold/runtime/manager';
import {
  ConfigMaps,
  Namespaces,
  Secrets,
  selectorFromLabelSelector,
  selectorFromSet,
  type LabelSelector,
  type PartialObjectMetadata,
  type Selector,
} from '@kubescaffold/runtime/rest';
import type { ApplyConfiguration, CachedClient } from '@kubescaffold/runtime/client';
import {
  BUNDLE_CONDITION_SYNCED,
  BUNDLE_LABEL_KEY,
  type Bundle,
  type BundleStatus,
  type BundleTarget,
  type SourceObjectKeySelector,
} from '../../api/v1alpha1/bundle_types.js';
import { BundleResource } from '../../api/v1alpha1/zz_generated.resources.js';
import { SourceNotFoundError, buildBundle } from '../bundle/sources.js';
import { FIELD_MANAGER, TargetReconciler, isControlledBy } from '../target/configmap.js';

// trust-manager's Bundle controller (pkg/bundle/bundle.go, controller.go, util.go): for each Bundle, the certificates
// of its sources in the trust namespace, written as one PEM bundle to a ConfigMap named as the Bundle in every
// namespace its namespaceSelector matches; targets in namespaces that stop matching are cleaned up; the Synced
// condition says how that went, with the original's reasons and messages.

// +kubebuilder:rbac:groups=trust.cert-manager.io,resources=bundles,verbs=get;list;watch
// +kubebuilder:rbac:groups=trust.cert-manager.io,resources=bundles/status,verbs=patch
// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;list;create;patch;watch;delete
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch
// +kubebuilder:rbac:groups="events.k8s.io",resources=events,verbs=create;patch

/** The Bundle controller's options, from the operator's flags. */
export interface BundleOptions {
  /** The trust namespace: the only one sources are read from (--trust-namespace). */
  namespace: string;
  /** When not empty, targets are written only in these namespaces (--target-namespaces). */
  targetNamespaces: string[];
  /** Leave expired certificates out of bundles (--filter-expired-certificates). */
  filterExpiredCerts: boolean;
  /** Leave certificates that are not CAs out of bundles (--filter-non-ca-certs). */
  filterNonCACerts: boolean;
}

/** What the controller reads and writes through. */
export interface BundleDeps {
  /** The manager's client: Bundles, Namespaces and the trust namespace's sources from its cache; writes. */
  client: Pick<Client, 'list' | 'apply' | 'delete' | 'status'> & { get: CachedClient['get'] };
  /** The target cache: metadata of labelled ConfigMaps, managedFields kept. */
  targetCache: Pick<InformerCache, 'getMetadata' | 'listMetadata'>;
  recorder: EventsRecorder;
  /** The clock of lastTransitionTime. */
  now?: () => Date;
}

/** metav1.Time as Go writes it: RFC 3339, whole seconds. */
const rfc3339 = (d: Date): string => d.toISOString().replace(/\.\d+Z$/, 'Z');

/** The target namespace selector: every namespace when the Bundle has none (as the original's default). */
export function targetNamespaceSelector(target: BundleTarget | undefined): Selector {
  // An operator the runtime does not know is refused by selectorFromLabelSelector, as by LabelSelectorAsSelector.
  return selectorFromLabelSelector((target?.namespaceSelector ?? {}) as LabelSelector);
}

/** Whether a source reference selects `obj`: by its labels, or by its name. */
export function sourceSelects(ref: SourceObjectKeySelector | undefined, obj: { metadata?: { name?: string; labels?: Record<string, string> } }): boolean {
  if (!ref) return false;
  try {
    if (ref.selector && selectorFromLabelSelector(ref.selector as LabelSelector).matches(obj.metadata?.labels ?? {})) return true;
  } catch {
    // An invalid selector selects nothing.
  }
  return ref.name === obj.metadata?.name;
}

/** A failure with the status to write first. */
interface Outcome {
  status?: BundleStatus;
  error?: unknown;
}

/** BundleReconciler reconciles Bundles into their target ConfigMaps. */
export class BundleReconciler implements Reconciler {
  private readonly targets: TargetReconciler;
  private readonly now: () => Date;

  constructor(
    private readonly deps: BundleDeps,
    private readonly opts: BundleOptions,
  ) {
    this.targets = new TargetReconciler(deps.client, deps.targetCache);
    this.now = deps.now ?? (() => new Date());
  }

  async reconcile(req: Request, ctx: ReconcileContext): Promise<Result> {
    const { status, error } = await this.reconcileBundle(req, ctx);
    if (status) {
      // The status as trust-manager applies it: the fields it owns, as the field manager `trust-manager`.
      const config: ApplyConfiguration<Bundle> = {
        apiVersion: `${BundleResource.group}/${BundleResource.version}`,
        kind: BundleResource.kind,
        metadata: { name: req.name },
        status,
      };
      await this.deps.client.status().apply(BundleResource, config, { fieldOwner: FIELD_MANAGER, force: true });
    }
    if (error !== undefined) throw error;
    return {};
  }

  private async reconcileBundle(req: Request, ctx: ReconcileContext): Promise<Outcome> {
    const { client, recorder } = this.deps;
    let bundle: Bundle;
    try {
      // Read past a status this controller has just written, so that a pass right after it does not write it again.
      bundle = await client.get(BundleResource, req, { readYourWrites: true });
    } catch (err) {
      if (isNotFound(err)) return {};
      throw new Error(`failed to get "${req.name}": ${(err as Error).message}`, { cause: err });
    }
    const existing = bundle.status?.conditions ?? [];
    const status: BundleStatus = bundle.status?.defaultCAVersion
      ? { defaultCAVersion: bundle.status.defaultCAVersion }
      : {};
    const setSynced = (c: Omit<Condition, 'lastTransitionTime' | 'type'>): void => {
      const previous = existing.find((e) => e.type === BUNDLE_CONDITION_SYNCED);
      const lastTransitionTime =
        previous && previous.status === c.status ? previous.lastTransitionTime : rfc3339(this.now());
      status.conditions = [{ type: BUNDLE_CONDITION_SYNCED, ...c, lastTransitionTime }];
    };
    const generation = bundle.metadata.generation ?? 0;

    let pem: string;
    try {
      const pool = await buildBundle(
        {
          reader: client,
          namespace: this.opts.namespace,
          pool: {
            filterExpiredCerts: this.opts.filterExpiredCerts,
            filterNonCACerts: this.opts.filterNonCACerts,
            onIgnored: (why, subject) => ctx.log.info(why, { certificate: subject }),
          },
          onEmptySelector: (kind, selector) =>
            ctx.log.info(`label selector ${selector} for ${kind} didn't match any resources`),
        },
        bundle.spec.sources,
      );
      pem = pool.pem();
    } catch (err) {
      // A missing source is waited for (its watch brings the Bundle back); anything else is retried.
      const notFound = err instanceof SourceNotFoundError;
      const reason = notFound ? 'SourceNotFound' : 'SourceBuildError';
      const message = notFound ? 'bundle source was not found' : 'failed to build bundle sources';
      ctx.log.error(err, message);
      const errMsg = `${message[0]!.toUpperCase()}${message.slice(1)}: ${(err as Error).message}`;
      setSynced({ status: 'False', reason, message: errMsg, observedGeneration: generation });
      recorder.record(bundle, undefined, 'Warning', reason, 'SyncFailed', errMsg);
      return { status, error: notFound ? undefined : new Error(`${message}: ${(err as Error).message}`) };
    }

    // Secret targets are not ported: the original's default (--secret-targets-enabled=false) answers this way.
    if (bundle.spec.target?.secret) {
      const message = 'Bundle has Secret targets but the feature is disabled';
      recorder.record(bundle, undefined, 'Warning', 'SecretTargetsDisabled', 'SyncFailed', message);
      setSynced({ status: 'False', reason: 'SecretTargetsDisabled', message, observedGeneration: generation });
      return { status };
    }

    let selector: Selector;
    try {
      selector = targetNamespaceSelector(bundle.spec.target);
    } catch (err) {
      const note = `Failed to build namespace match labels selector: ${(err as Error).message}`;
      recorder.record(bundle, undefined, 'Warning', 'NamespaceSelectorError', 'SyncFailed', note);
      return { error: new Error(`failed to build NamespaceSelector: ${(err as Error).message}`) };
    }

    // The namespaces that get a target: matching, not terminating, and in --target-namespaces when it is set.
    const wanted = new Set<string>();
    const namespaces = await client.list(Namespaces, { labelSelector: selector.toString() });
    for (const ns of namespaces.items) {
      const name = ns.metadata?.name ?? '';
      if (ns.status?.phase === 'Terminating') continue;
      if (this.opts.targetNamespaces.length > 0 && !this.opts.targetNamespaces.includes(name)) continue;
      if (bundle.spec.target?.configMap) wanted.add(name);
    }

    // Targets this Bundle wrote before in namespaces it no longer wants.
    const previous = await this.deps.targetCache.listMetadata(ConfigMaps, {
      labelSelector: selectorFromSet({ [BUNDLE_LABEL_KEY]: bundle.metadata.name! }).toString(),
    });
    for (const t of previous.items) {
      const ns = t.metadata?.namespace ?? '';
      if (t.metadata?.name !== bundle.metadata.name || wanted.has(ns)) continue;
      if (t.metadata?.deletionTimestamp || !isControlledBy(t, bundle)) continue;
      // A failed cleanup is not worth failing the Bundle for.
      await this.targets.cleanupConfigMap(ns, bundle).catch((err: unknown) => {
        ctx.log.error(err, 'failed to cleanup bundle target', { namespace: ns });
      });
    }

    let wrote = false;
    for (const ns of wanted) {
      try {
        if (await this.targets.applyConfigMap(ns, bundle, pem)) wrote = true;
      } catch (err) {
        ctx.log.error(err, 'failed sync bundle to target namespace', { namespace: ns });
        const msg = (err as Error).message;
        recorder.record(bundle, undefined, 'Warning', 'SyncConfigMapTargetFailed', 'SyncFailed',
          `Failed to sync target ConfigMap in Namespace "${ns}": ${msg}`);
        setSynced({
          status: 'False',
          reason: 'SyncConfigMapTargetFailed',
          message: `Failed to sync bundle ConfigMap to namespace "${ns}": ${msg}`,
          observedGeneration: generation,
        });
        return { status, error: err };
      }
    }

    // A default CA package is never used here, so a version left from one is cleared.
    if (bundle.status?.defaultCAVersion) {
      delete status.defaultCAVersion;
      wrote = true;
    }

    const restricted = this.opts.targetNamespaces.length > 0;
    const message = selector.empty()
      ? `Successfully synced Bundle to all ${restricted ? 'allowed ' : ''}namespaces`
      : `Successfully synced Bundle to ${restricted ? 'allowed ' : ''}namespaces that match this label selector: ${selector.toString()}`;
    const current = existing.find((c) => c.type === BUNDLE_CONDITION_SYNCED);
    const unchanged =
      current?.status === 'True' &&
      current.reason === 'Synced' &&
      current.message === message &&
      (current.observedGeneration ?? 0) === generation;
    if (!wrote && unchanged) return {};
    setSynced({ status: 'True', reason: 'Synced', message, observedGeneration: generation });
    recorder.record(bundle, undefined, 'Normal', 'Synced', 'Synced', message);
    return { status };
  }

  /**
   * Bundles, and what makes a Bundle's output change: namespaces (its selector), the trust namespace's ConfigMaps and
   * Secrets (its sources), and its targets, from `targetCache` (metadata only).
   */
  setupWithManager(mgr: Manager, targetCache: Pick<InformerCache, 'getMetadataInformer'>): void {
    // The original lists every Bundle for each event and keeps those the object concerns.
    const bundlesWhere = <T extends KubeObject>(concerns: (b: Bundle, obj: T) => boolean) =>
      enqueueRequestsFromMapFunc<T>(async (obj) => {
        const { items } = await this.deps.client.list(BundleResource);
        return items.filter((b) => concerns(b, obj)).map((b) => ({ namespace: '', name: b.metadata.name! }));
      });
    const inTrustNamespace = { predicates: [objectPredicate((o) => o.metadata?.namespace === this.opts.namespace)] };
    const labels = (o: KubeObject) => o.metadata?.labels ?? {};
    newControllerManagedBy(mgr)
      .for(BundleResource)
      .named('bundles')
      // Targets: a change to a ConfigMap a Bundle controls brings that Bundle back, from the target cache.
      .watchesRawSource(
        new KindSource(
          { getInformer: (res) => targetCache.getMetadataInformer(res) as never },
          ConfigMaps as Resource<PartialObjectMetadata>,
          enqueueRequestForOwner(BundleResource, { onlyController: true }),
        ),
      )
      // Namespaces: every Bundle whose selector matches the namespace.
      .watches(
        Namespaces,
        bundlesWhere((b, ns) => {
          try {
            return targetNamespaceSelector(b.spec.target).matches(labels(ns));
          } catch {
            return false;
          }
        }),
      )
      // Sources: every Bundle that names the ConfigMap or Secret, or selects it.
      .watches(
        ConfigMaps,
        bundlesWhere((b, cm) => b.spec.sources.some((s) => sourceSelects(s.configMap, cm))),
        inTrustNamespace,
      )
      .watches(
        Secrets,
        bundlesWhere((b, secret) => b.spec.sources.some((s) => sourceSelects(s.secret, secret))),
        inTrustNamespace,
      )
      .complete(this);
  }
}
