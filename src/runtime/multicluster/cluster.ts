import { InformerCache } from '../cache/informer-cache.js';
import { CachedClient, type CachedClientOptions } from '../client/cached-client.js';
import type { Client } from '../client/client.js';
import type { KubeConfig } from '../clientcmd/kubeconfig-types.js';
import { DiscoveryClient } from '../discovery/discovery-client.js';
import { LifecycleError, TransportError } from '../errors.js';
import { log as rootLog, type Logger } from '../log/index.js';
import type { FieldIndexer, Manager } from '../manager/manager.js';
import { DEFAULT_SYNC_PERIOD, type CacheOptions } from '../manager/options.js';
import { newClient, type RestClient } from '../rest/client.js';
import { isForbidden, isNotFound } from '../rest/errors.js';
import { CustomResourceDefinitions } from '../rest/builtins.js';
import { waitForCacheSync } from '../cache/wait.js';
import { NamespaceConfinedClient, confinedReader } from './confine.js';
import type { KubeObject, Resource } from '../rest/types.js';
import { onAbort, untilAborted } from '../internal/abort-fanout.js';

/** What a cluster's cache holds: the manager's cache options that make sense per cluster. */
export type ClusterCacheOptions = Pick<
  CacheOptions,
  | 'defaultNamespaces'
  | 'defaultLabelSelector'
  | 'defaultFieldSelector'
  | 'byObject'
  | 'unsafeDisableDeepCopy'
  | 'syncPeriod'
  | 'defaultTransform'
  | 'readerFailOnMissingInformer'
  | 'syncTimeout'
>;

/** Options of a cluster made from a kubeconfig ({@link newCluster}). */
export interface ClusterOptions {
  /** What its informer cache holds; default everything its controllers watch, in every namespace. */
  cache?: ClusterCacheOptions;
  /** Its client: the field owner and validation of writes, where API warnings go, kinds read uncached. */
  client?: CachedClientOptions;
  /**
   * Confine the cluster to this namespace of its API server (the namespaces provider's clusters): its cache holds
   * that namespace alone, and its clients put objects that name no namespace in it and refuse any other namespace and
   * cluster-scoped kinds.
   */
  namespace?: string;
  /** Parent logger; default the root logger. */
  log?: Logger;
}

/** What one run of a cluster uses: its clients and cache. A cluster made by newCluster makes them anew for each run. */
interface RuntimeParts {
  restClient: RestClient;
  cache: InformerCache;
  client: CachedClient;
  /** Its uncached client; default restClient. */
  apiReader?: Client;
}

/** How a cluster is put together; the factories below fill it in. */
interface ClusterParts {
  name: string;
  kubeConfig: KubeConfig;
  /** Makes the parts of a run; called once at construction, and again after each run that stopped. */
  make: (cluster: Cluster) => RuntimeParts;
  /** Whether start() runs the cache and closes the client's sockets (false for the manager's own cluster). */
  owned: boolean;
}

// How long a health check waits for an answer before it counts as none (ms).
const DEFAULT_PROBE_TIMEOUT = 5_000;

/**
 * One Kubernetes cluster a multi-cluster manager works with (controller-runtime's cluster.Cluster, and
 * multicluster-runtime's clusters): its client, its informer cache and its API server's discovery. Providers make
 * them ({@link newCluster}) and the manager engages them: it starts the cache when a cluster is engaged, and stops it
 * and closes every socket when it is disengaged. Engaged again (a cluster ring hands it back), it runs with a new
 * client and cache: take them from the cluster when it is engaged, as perCluster() does, rather than keeping them.
 */
export class Cluster {
  /** The cluster's name, unique among those its provider engages; '' is the manager's own cluster. */
  readonly name: string;
  /** How the cluster is reached. */
  readonly kubeConfig: KubeConfig;
  private readonly make: (cluster: Cluster) => RuntimeParts;
  private parts: RuntimeParts & { apiReader: Client; discovery: DiscoveryClient };
  private readonly owned: boolean;
  // Resources served per group version, asked once (again with `fresh`).
  private readonly served = new Map<string, Promise<Set<string> | undefined>>();
  // Whether this cluster lets the client list CRDs: asked once (a refusal is kept).
  private crdAccess: Promise<boolean> | undefined;
  private running = false;

  /** @internal Use newCluster, or a provider. */
  constructor(parts: ClusterParts) {
    this.name = parts.name;
    this.kubeConfig = parts.kubeConfig;
    this.make = parts.make;
    this.owned = parts.owned;
    this.parts = this.newParts();
  }

  private newParts(): RuntimeParts & { apiReader: Client; discovery: DiscoveryClient } {
    const p = this.make(this);
    return { ...p, apiReader: p.apiReader ?? p.restClient, discovery: new DiscoveryClient(p.restClient.transport) };
  }

  /** Reads from this cluster's cache (starting the kind's informer on first use), writes to its API server. */
  getClient(): CachedClient {
    return this.parts.client;
  }

  /** Reads and writes straight to this cluster's API server. */
  getAPIReader(): Client {
    return this.parts.apiReader;
  }

  /**
   * The plain API client of this cluster (watches, subresources, discovery's transport); for a namespace-confined
   * cluster it is not confined.
   */
  getRESTClient(): RestClient {
    return this.parts.restClient;
  }

  /** This cluster's informer cache. */
  getCache(): InformerCache {
    return this.parts.cache;
  }

  /** Adds field indexes to this cluster's cache (the manager's getFieldIndexer adds them to every cluster). */
  getFieldIndexer(): FieldIndexer {
    return { indexField: (res, field, extract) => this.parts.cache.indexField(res, field, extract) };
  }

  /**
   * Whether this cluster's API server serves `res` (its group version lists the resource): a cluster without a CRD
   * does not. Asked of discovery once per group version; `fresh` asks again. Errors other than "not found" (the
   * server cannot be reached) are thrown: the answer is not known.
   */
  async serves(res: Resource, opts: { fresh?: boolean } = {}): Promise<boolean> {
    const gv = res.group === '' ? res.version : `${res.group}/${res.version}`;
    if (opts.fresh) this.served.delete(gv);
    let names = this.served.get(gv);
    if (!names) {
      names = this.parts.discovery.serverResourcesForGroupVersion(gv).then(
        (list) => new Set(list.resources.map((r) => r.name)),
        (err: unknown) => {
          if (isNotFound(err)) return undefined;
          this.served.delete(gv);
          throw err;
        },
      );
      this.served.set(gv, names);
    }
    return (await names)?.has(res.plural) ?? false;
  }

  /**
   * Calls `listener` whenever a CustomResourceDefinition is created or changes in this cluster (its status too: a CRD
   * becoming Established), until `signal` aborts, through one watch of their metadata that every caller shares. Resolves
   * true once that watch has listed, or false without watching where the cluster does not let this client list
   * CRDs (RBAC: `list` and `watch` on customresourcedefinitions.apiextensions.k8s.io) or does not answer: the caller
   * then asks at an interval instead.
   */
  async onCustomResourceDefinitionChange(listener: () => void, signal: AbortSignal): Promise<boolean> {
    this.crdAccess ??= this.parts.restClient.listMetadata(CustomResourceDefinitions, { limit: 1, signal }).then(
      () => true,
      (err: unknown) => {
        // Only a refusal is an answer to keep; a cluster that does not answer is asked again next time.
        if (!isForbidden(err)) this.crdAccess = undefined;
        return false;
      },
    );
    if (!(await this.crdAccess) || signal.aborted) return false;
    const informer = this.parts.cache.getMetadataInformer(CustomResourceDefinitions);
    const registration = informer.addEventHandler({
      onAdd: (_crd, isInInitialList) => {
        if (!isInInitialList) listener();
      },
      onUpdate: () => listener(),
    });
    onAbort(signal, () => registration.remove());
    return waitForCacheSync(signal, () => registration.hasSynced());
  }

  /**
   * Resolves once the API server answers `/readyz` with any status but a server error, within `timeoutMs`; rejects
   * when it does not (no connection, no answer in time, or 5xx). The manager's health checks of engaged clusters.
   */
  async probe(signal: AbortSignal, timeoutMs = DEFAULT_PROBE_TIMEOUT): Promise<void> {
    const timeout = AbortSignal.timeout(timeoutMs);
    const res = await this.parts.restClient.transport.requestRaw({
      method: 'GET',
      path: '/readyz',
      accept: 'text/plain',
      signal: AbortSignal.any([signal, timeout]),
      idleTimeoutMs: timeoutMs,
    });
    if (res.status >= 500)
      throw new TransportError(`/readyz answered ${res.status}: ${res.text.trim().slice(0, 200)}`, 'BadResponse');
  }

  /**
   * Runs the cluster's cache until `signal` aborts, then waits for its informers to stop and closes its client's
   * sockets; the next run gets a new client and cache. The manager calls it when it engages the cluster; a cluster of
   * the manager's own (its local cluster) runs with the manager instead, and this only waits.
   */
  async start(signal: AbortSignal): Promise<void> {
    if (this.running) throw new LifecycleError(`${this} is already running`, 'AlreadyStarted');
    this.running = true;
    try {
      if (!this.owned) {
        await untilAborted(signal);
        return;
      }
      const { cache, restClient } = this.parts;
      try {
        await cache.start(signal);
      } finally {
        restClient.close();
        // Nothing connects until the next run asks: a new client and cache cost no socket or timer meanwhile.
        this.parts = this.newParts();
        this.served.clear();
      }
    } finally {
      this.running = false;
    }
  }

  toString(): string {
    return this.name === '' ? 'the local cluster' : `cluster ${this.name}`;
  }
}

// A cluster's writes are fenced by whoever engages it (the manager's leader election, a cluster ring's term); set
// when it is engaged, here rather than on the class so that it is no part of a cluster's public surface.
const fences = new WeakMap<Cluster, () => void>();

/** Sets what a cluster's clients call before each write; throwing refuses the write. */
export function setClusterFence(cluster: Cluster, fence: (() => void) | undefined): void {
  if (fence) fences.set(cluster, fence);
  else fences.delete(cluster);
}

/**
 * A cluster reached through `kubeConfig`, with an informer cache and a client of its own. Nothing connects until it
 * is engaged and its controllers ask for informers.
 * @example
 * A cluster made by hand, as a provider makes one from a kubeconfig it found (here the process's own).
 * ```ts
 * import { loadKubeConfig } from '@kubescaffold/runtime';
 * import { newCluster } from '@kubescaffold/runtime/multicluster';
 * import { ConfigMaps } from '@kubescaffold/runtime/rest';
 *
 * const cluster = newCluster('east', loadKubeConfig(), { cache: { defaultNamespaces: ['default'] } });
 * console.log(`${cluster} serves ConfigMaps: ${await cluster.serves(ConfigMaps)}`);
 * cluster.getRESTClient().close();
 * // Output:
 * // cluster east serves ConfigMaps: true
 * ```
 */
export function newCluster(name: string, kubeConfig: KubeConfig, opts: ClusterOptions = {}): Cluster {
  const { fieldOwner, fieldValidation, warningHandler } = opts.client ?? {};
  const log = (opts.log ?? rootLog).withValues({ cluster: name });
  const ns = opts.namespace;
  const cacheOptions = ns
    ? {
        ...opts.cache,
        defaultNamespaces: [ns],
        byObject: opts.cache?.byObject?.map((b) => ({ ...b, namespaces: [ns] })),
      }
    : (opts.cache ?? {});
  const make = (cluster: Cluster): RuntimeParts => {
    const restClient = newClient(kubeConfig, {
      fieldOwner,
      fieldValidation,
      warningHandler,
      beforeWrite: () => fences.get(cluster)?.(),
    });
    const cache = new InformerCache({ client: restClient, ...informerCacheOptions(cacheOptions), log });
    if (!ns) return { restClient, cache, client: new CachedClient(cache, restClient, opts.client) };
    return {
      restClient,
      cache,
      client: new NamespaceConfinedClient(cache, restClient, opts.client ?? {}, name, ns),
      apiReader: confinedReader(restClient, name, ns),
    };
  };
  return new Cluster({ name, kubeConfig, make, owned: true });
}

/** The manager's own cluster as a Cluster named `name` ('' by default): its cache, client and kubeconfig. */
export function localCluster(mgr: Manager, kubeConfig: KubeConfig, name = ''): Cluster {
  // The manager's API reader is its RestClient (fenced by its leader election already).
  const restClient = mgr.getAPIReader() as RestClient;
  const parts = { restClient, cache: mgr.getCache(), client: mgr.getClient() };
  return new Cluster({ name, kubeConfig, make: () => parts, owned: false });
}

/** A cluster's InformerCache options from its cache options, with the manager's defaults. */
function informerCacheOptions(c: ClusterCacheOptions): Omit<ConstructorParameters<typeof InformerCache>[0], 'client'> {
  const syncPeriod = c.syncPeriod ?? DEFAULT_SYNC_PERIOD;
  return {
    namespaces: c.defaultNamespaces,
    defaultLabelSelector: c.defaultLabelSelector,
    defaultFieldSelector: c.defaultFieldSelector,
    byObject: c.byObject,
    unsafeDisableDeepCopy: c.unsafeDisableDeepCopy,
    ...(c.defaultTransform !== undefined ? { defaultTransform: c.defaultTransform } : {}),
    ...(c.readerFailOnMissingInformer ? { readerFailOnMissingInformer: true } : {}),
    // Jittered as the manager's, so that clusters do not resync in step.
    resyncPeriodMs: syncPeriod > 0 ? Math.round(syncPeriod * (0.9 + Math.random() * 0.2)) : 0,
    ...(c.syncTimeout !== undefined ? { readSyncTimeout: c.syncTimeout } : {}),
  };
}

/** The kind's name as messages write it: `Widget.example.com/v1`, or `ConfigMap/v1` for the core group. */
export function kindName(res: Pick<Resource<KubeObject>, 'group' | 'version' | 'kind'>): string {
  return res.group === '' ? `${res.kind}/${res.version}` : `${res.kind}.${res.group}/${res.version}`;
}
