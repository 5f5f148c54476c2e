import { log as rootLog, type Logger } from '../log/index.js';
import { RestClient, type PartialObjectMetadata } from '../rest/client.js';
import { resourceId } from '../rest/resource.js';
import type { KubeObject, Resource } from '../rest/types.js';
import type { TransformFunc } from './delta-fifo.js';
import { Lister } from './lister.js';
import { newListWatch, newMetadataListWatch, type ListerWatcher, type ListWatchScope } from './listwatch.js';
import { SharedIndexInformer, type SharedIndexInformerOptions } from './shared-informer.js';
import { waitForCacheSync } from './wait.js';
import { ConfigurationError } from '../errors.js';

/** Builds the ListerWatcher for a resource and scope (the RestClient's by default; a fake in tests). */
export type ListerWatcherFactory = <T extends KubeObject>(res: Resource<T>, scope: ListWatchScope) => ListerWatcher<T>;

/** Builds the metadata-only ListerWatcher for a resource and scope. */
export type MetadataListerWatcherFactory = (
  res: Resource,
  scope: ListWatchScope,
) => ListerWatcher<PartialObjectMetadata>;

/** Options of a SharedInformerFactory: default resync period, namespace, object transform, and reflector settings. */
export interface SharedInformerFactoryOptions {
  /** Needed for metadataInformerFor when the factory is built from a ListerWatcherFactory rather than a RestClient. */
  metadataListerWatcher?: MetadataListerWatcherFactory;
  /** Resync period of informers that ask for none (ms); 0 (default) means none. */
  defaultResyncMs?: number;
  /** Scope used when informerFor gives no namespace ('' or unset: all namespaces). */
  namespace?: string;
  /** Applied to every object before it is cached (e.g. stripManagedFields); unset, each informer's default; null none. */
  transform?: TransformFunc<KubeObject> | null;
  /** Passed to every informer's Reflector. */
  reflector?: SharedIndexInformerOptions<KubeObject>['reflector'];
  /** Parent logger of the informers; default the root logger. */
  logger?: Logger;
}

/** Which informer to get from the factory: the scope (namespace, selectors), its resync period and transform. */
export interface InformerRequest extends ListWatchScope {
  /** This informer's resync period (ms); default the factory's defaultResyncMs. */
  resyncPeriodMs?: number;
  /** Applied to objects before they are cached, instead of the factory's transform (when the informer is made). */
  transform?: TransformFunc<KubeObject> | null;
}

interface Entry {
  informer: SharedIndexInformer<KubeObject>;
  name: string;
  run?: Promise<void>;
}

/**
 * client-go's SharedInformerFactory: one informer per resource + namespace + selectors, shared by everyone who asks.
 * start(signal) starts the informers not yet started (call it again after asking for more).
 * @example
 * One informer per kind, shared: list once, then watch, with event handlers and a lister over the local cache.
 * ```ts
 * import { loadKubeConfig, newClient } from '@kubescaffold/runtime';
 * import { Lister, SharedInformerFactory } from '@kubescaffold/runtime/cache';
 * import { ConfigMaps } from '@kubescaffold/runtime/rest';
 *
 * const client = newClient(loadKubeConfig());
 * const stop = new AbortController();
 * const factory = new SharedInformerFactory(client, { namespace: 'default' });
 * const informer = factory.informerFor(ConfigMaps);
 * let seen = (): void => {};
 * const added = new Promise<void>((resolve) => (seen = resolve));
 * informer.addEventHandler({
 *   onAdd(cm, isInInitialList) {
 *     if (cm.metadata?.name !== 'example-informer' || isInInitialList) return;
 *     console.log(`added ${cm.metadata.name}`);
 *     seen();
 *   },
 * });
 * factory.start(stop.signal);
 * await factory.waitForCacheSync(stop.signal);
 * await client.create(ConfigMaps, { metadata: { name: 'example-informer', namespace: 'default' } });
 * await added;
 * // Handlers run after the cache has the object, so the lister sees it.
 * const lister = new Lister(informer.getIndexer());
 * console.log(`cached ${lister.namespace('default').get('example-informer') !== undefined}`);
 * stop.abort();
 * await factory.shutdown();
 * client.close();
 * // Output:
 * // added example-informer
 * // cached true
 * ```
 */
export class SharedInformerFactory {
  private readonly informers = new Map<string, Entry>();
  private readonly lwFactory: ListerWatcherFactory;
  private readonly metadataLwFactory: MetadataListerWatcherFactory | undefined;
  private readonly log: Logger;

  constructor(
    source: RestClient | ListerWatcherFactory,
    private readonly opts: SharedInformerFactoryOptions = {},
  ) {
    this.lwFactory = source instanceof RestClient ? (res, scope) => newListWatch(source, res, scope) : source;
    this.metadataLwFactory =
      opts.metadataListerWatcher ??
      (source instanceof RestClient ? (res, scope) => newMetadataListWatch(source, res, scope) : undefined);
    this.log = opts.logger ?? rootLog.withName('informers');
  }

  /** The shared informer for res in this scope, created on first request. */
  informerFor<T extends KubeObject>(res: Resource<T>, req: InformerRequest = {}): SharedIndexInformer<T> {
    return this.getOrCreate(res, req, '', (scope) => this.lwFactory(res, scope));
  }

  /**
   * The shared metadata-only informer for res (objects are PartialObjectMetadata): for watching kinds whose bodies
   * you never read, at a fraction of the memory.
   */
  metadataInformerFor(res: Resource, req: InformerRequest = {}): SharedIndexInformer<PartialObjectMetadata> {
    const lw = this.metadataLwFactory;
    if (!lw) throw new ConfigurationError('metadata informers need a RestClient or the metadataListerWatcher option');
    return this.getOrCreate(res, req, 'metadata', (scope) => lw(res, scope));
  }

  private getOrCreate<T extends KubeObject>(
    res: Resource,
    req: InformerRequest,
    variant: string,
    makeLw: (scope: ListWatchScope) => ListerWatcher<T>,
  ): SharedIndexInformer<T> {
    const scope: ListWatchScope = {
      namespace: res.namespaced ? (req.namespace ?? this.opts.namespace) || undefined : undefined,
      labelSelector: req.labelSelector || undefined,
      fieldSelector: req.fieldSelector || undefined,
    };
    const key = `${informerKey(res, scope)}|${variant}`;
    const existing = this.informers.get(key);
    if (existing) return existing.informer as unknown as SharedIndexInformer<T>;
    const name = `${variant ? `${variant}:` : ''}${res.plural}.${res.group || 'core'}/${res.version}${scope.namespace ? ` ns=${scope.namespace}` : ''}${
      scope.labelSelector ? ` labels=${scope.labelSelector}` : ''
    }${scope.fieldSelector ? ` fields=${scope.fieldSelector}` : ''}`;
    const informer = new SharedIndexInformer<T>(makeLw(scope), {
      name,
      resyncPeriodMs: req.resyncPeriodMs ?? this.opts.defaultResyncMs ?? 0,
      transform: (req.transform !== undefined ? req.transform : this.opts.transform) as
        TransformFunc<T> | null | undefined,
      reflector: this.opts.reflector,
      logger: this.log.withValues({ informer: name }),
    });
    this.informers.set(key, { informer: informer as unknown as SharedIndexInformer<KubeObject>, name });
    return informer;
  }

  /** A Lister over the shared informer's cache. */
  listerFor<T extends KubeObject>(res: Resource<T>, req: InformerRequest = {}): Lister<T> {
    return new Lister(this.informerFor(res, req).getIndexer());
  }

  /** Starts every informer not yet started; each runs until signal aborts. Does not wait. */
  start(signal: AbortSignal): void {
    for (const e of this.informers.values()) {
      if (e.run || signal.aborted) continue;
      e.run = e.informer
        .run(signal)
        .catch((err: unknown) => this.log.error(err, 'informer stopped with an error', { informer: e.name }));
    }
  }

  /** Waits for every started informer's initial list; maps informer names to whether each synced before signal aborted. */
  async waitForCacheSync(signal: AbortSignal): Promise<Map<string, boolean>> {
    const started = [...this.informers.values()].filter((e) => e.run);
    const results = await Promise.all(started.map((e) => waitForCacheSync(signal, () => e.informer.hasSynced())));
    return new Map(started.map((e, i) => [e.name, results[i] ?? false]));
  }

  /** Resolves once every started informer has stopped (after the signal given to start aborted). */
  async shutdown(): Promise<void> {
    await Promise.all([...this.informers.values()].map((e) => e.run));
  }
}

function informerKey(res: Resource, scope: ListWatchScope): string {
  return `${resourceId(res)}|${scope.namespace ?? ''}|${scope.labelSelector ?? ''}|${scope.fieldSelector ?? ''}`;
}
