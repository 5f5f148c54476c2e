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
import { isNotFound } from '../rest/errors.js';
import { NamespaceConfinedClient, confinedReader } from './confine.js';
import type { KubeObject, Resource } from '../rest/types.js';

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

/** How a cluster is put together; the factories below fill it in. */
interface ClusterParts {
  name: string;
  kubeConfig: KubeConfig;
  restClient: RestClient;
  cache: InformerCache;
  client: CachedClient;
  /** Its uncached client; default restClient. */
  apiReader?: Client;
  /** Whether start() runs the cache and closes the client's sockets (false for the manager's own cluster). */
  owned: boolean;
}

// How long a health check waits for an answer before it counts as none (ms).
const DEFAULT_PROBE_TIMEOUT = 5_000;

/**
 * One Kubernetes cluster a multi-cluster manager works with (controller-runtime's cluster.Cluster, and
 * multicluster-runtime's clusters): its client, its informer cache and its API server's discovery. Providers make
 * them ({@link newCluster}) and the manager engages them: it starts the cache when a cluster is engaged, and stops it
 * and closes every socket when it is disengaged. A cluster runs once; a cluster that comes back is a new one.
 */
export class Cluster {
  /** The cluster's name, unique among those its provider engages; '' is the manager's own cluster. */
  readonly name: string;
  /** How the cluster is reached. */
  readonly kubeConfig: KubeConfig;
  private readonly restClient: RestClient;
  private readonly cache: InformerCache;
  private readonly client: CachedClient;
  private readonly apiReader: Client;
  private readonly owned: boolean;
  private readonly discovery: DiscoveryClient;
  // Resources served per group version, asked once (again after forgetDiscovery()).
  private readonly served = new Map<string, Promise<Set<string> | undefined>>();
  private started = false;

  /** @internal Use newCluster, or a provider. */
  constructor(parts: ClusterParts) {
    this.name = parts.name;
    this.kubeConfig = parts.kubeConfig;
    this.restClient = parts.restClient;
    this.cache = parts.cache;
    this.client = parts.client;
    this.apiReader = parts.apiReader ?? parts.restClient;
    this.owned = parts.owned;
    this.discovery = new DiscoveryClient(parts.restClient.transport);
  }

  /** Reads from this cluster's cache (starting the kind's informer on first use), writes to its API server. */
  getClient(): CachedClient {
    return this.client;
  }

  /** Reads and writes straight to this cluster's API server. */
  getAPIReader(): Client {
    return this.apiReader;
  }

  /**
   * The plain API client of this cluster (watches, subresources, discovery's transport); for a namespace-confined
   * cluster it is not confined.
   */
  getRESTClient(): RestClient {
    return this.restClient;
  }

  /** This cluster's informer cache. */
  getCache(): InformerCache {
    return this.cache;
  }

  /** Adds field indexes to this cluster's cache (the manager's getFieldIndexer adds them to every cluster). */
  getFieldIndexer(): FieldIndexer {
    return { indexField: (res, field, extract) => this.cache.indexField(res, field, extract) };
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
      names = this.discovery.serverResourcesForGroupVersion(gv).then(
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
   * Resolves once the API server answers `/readyz` with any status but a server error, within `timeoutMs`; rejects
   * when it does not (no connection, no answer in time, or 5xx). The manager's health checks of engaged clusters.
   */
  async probe(signal: AbortSignal, timeoutMs = DEFAULT_PROBE_TIMEOUT): Promise<void> {
    const timeout = AbortSignal.timeout(timeoutMs);
    const res = await this.restClient.transport.requestRaw({
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
   * sockets. The manager calls it when it engages the cluster; a cluster of the manager's own (its local cluster)
   * runs with the manager instead, and this only waits.
   */
  async start(signal: AbortSignal): Promise<void> {
    if (this.started) throw new LifecycleError(`cluster ${this.name} was already started`, 'AlreadyStarted');
    this.started = true;
    if (!this.owned) {
      await new Promise<void>((resolve) => {
        if (signal.aborted) resolve();
        else signal.addEventListener('abort', () => resolve(), { once: true });
      });
      return;
    }
    try {
      await this.cache.start(signal);
    } finally {
      this.restClient.close();
    }
  }

  toString(): string {
    return this.name === '' ? 'the local cluster' : `cluster ${this.name}`;
  }
}

// A cluster's writes are fenced by whoever engages it (the manager's leader election, a cluster ring's term); set
// when it is engaged, here rather than on the class so that it is no part of a cluster's public surface.
const fences = new WeakMap<RestClient, () => void>();

/** Sets what a cluster's client calls before each write; throwing refuses the write. */
export function setClusterFence(cluster: Cluster, fence: (() => void) | undefined): void {
  const rc = cluster.getRESTClient();
  if (fence) fences.set(rc, fence);
  else fences.delete(rc);
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
  const restClient: RestClient = newClient(kubeConfig, {
    fieldOwner,
    fieldValidation,
    warningHandler,
    beforeWrite: () => fences.get(restClient)?.(),
  });
  const log = (opts.log ?? rootLog).withValues({ cluster: name });
  const ns = opts.namespace;
  const cacheOptions = ns
    ? {
        ...opts.cache,
        defaultNamespaces: [ns],
        byObject: opts.cache?.byObject?.map((b) => ({ ...b, namespaces: [ns] })),
      }
    : (opts.cache ?? {});
  const cache = new InformerCache({ client: restClient, ...informerCacheOptions(cacheOptions), log });
  if (ns) {
    const client = new NamespaceConfinedClient(cache, restClient, opts.client ?? {}, name, ns);
    const apiReader = confinedReader(restClient, name, ns);
    return new Cluster({ name, kubeConfig, restClient, cache, client, apiReader, owned: true });
  }
  const client = new CachedClient(cache, restClient, opts.client);
  return new Cluster({ name, kubeConfig, restClient, cache, client, owned: true });
}

/** The manager's own cluster as a Cluster named `name` ('' by default): its cache, client and kubeconfig. */
export function localCluster(mgr: Manager, kubeConfig: KubeConfig, name = ''): Cluster {
  // The manager's API reader is its RestClient (fenced by its leader election already).
  const restClient = mgr.getAPIReader() as RestClient;
  return new Cluster({
    name,
    kubeConfig,
    restClient,
    cache: mgr.getCache(),
    client: mgr.getClient(),
    owned: false,
  });
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
