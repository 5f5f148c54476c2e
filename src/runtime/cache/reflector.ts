import { log as rootLog, type Logger } from '../log/index.js';
import { isGone, isTooManyRequests } from '../rest/errors.js';
import { PermissionLogDedup } from '../rest/forbidden.js';
import type { KubeObject, ObjectList, WatchEvent } from '../rest/types.js';
import { errorFromWatchEvent } from '../rest/watch.js';
import { onAbort } from '../internal/abort-fanout.js';
import { Backoff } from './backoff.js';
import type { ListerWatcher, ListerWatcherListOptions } from './listwatch.js';
import { dropsManagedFields } from './transforms.js';
import { LifecycleError, TransportError } from '../errors.js';

/** Where a Reflector puts what it sees (a DeltaFIFO for informers, any Store in tests). */
export interface ReflectorStore<T> {
  /** Adds an object a watch reported ADDED. */
  add(obj: T): void;
  /** Records the new state of an object a watch reported MODIFIED. */
  update(obj: T): void;
  /** Removes an object a watch reported DELETED. */
  delete(obj: T): void;
  /** Replaces the whole content with a (re)list's items, at that list's resourceVersion. */
  replace(items: T[], resourceVersion: string): void;
  /** Re-delivers the known objects (a periodic resync). */
  resync(): void;
}

/**
 * Options of a Reflector (client-go's reflector fields): paging, watch timeouts, WatchList, resync, backoff and
 * logging.
 */
export interface ReflectorOptions<T extends KubeObject = KubeObject> {
  /** Names the reflector in logs. */
  name?: string;
  /** How often to ask the store to resync (ms); 0 (default) never. */
  resyncPeriodMs?: number;
  /** Consulted at each resync tick; resyncs only when it returns true (default: always). */
  shouldResync?: () => boolean;
  /** List page size (client-go: 500). */
  pageSize?: number;
  /** Watches ask the server to end them after a random time in [min, 2×min] seconds (client-go: 300). */
  minWatchTimeoutSeconds?: number;
  /**
   * A watch that receives nothing (not even a bookmark, which the API server sends about once a minute, the first
   * sometimes only after two) for this long is presumed dead and resumed: the HTTP/1.1 stand-in for Go's HTTP/2
   * pings. Default 150 s; 0 disables.
   */
  watchIdleTimeoutMs?: number;
  /** Start with a WatchList stream (sendInitialEvents) instead of a LIST; falls back to LIST if the server refuses. */
  useWatchList?: boolean;
  /** Retry delays (client-go: 800 ms doubling to 30 s, jitter 1.0, reset after 2 min without errors). */
  backoff?: Backoff;
  /**
   * Told when its watch opens, and when it goes down (a failed list or watch, a relist): not when the server ends a
   * watch that is then reopened at once.
   */
  onWatchingChange?: (watching: boolean) => void;
  /** Logger; default the root logger. */
  logger?: Logger;
  /** Called with every list or watch error before the reflector backs off and retries (logged by default). */
  onError?: (err: unknown) => void;
  /**
   * Applied once to every object before the store receives it (an informer's transform): to a list's items as they are
   * decoded, so that what it drops dies young instead of surviving the whole list, and to each watch event's object.
   */
  transform?: (obj: T) => T;
}

const INITIAL_EVENTS_END = 'k8s.io/initial-events-end';

// Errors of the connection rather than of the request: the watch resumes from the last resourceVersion.
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ENOTFOUND',
  'ECONNABORTED',
  'ERR_STREAM_PREMATURE_CLOSE',
  'EIDLETIMEOUT',
  'UND_ERR_SOCKET',
]);

/**
 * True for connection-level errors (ECONNRESET, ECONNREFUSED, EIDLETIMEOUT, ...) after which a reflector resumes its
 * watch rather than relisting.
 */
export function isNetworkError(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && NETWORK_CODES.has(code);
}

function isRetriableApiError(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return isTooManyRequests(e) || code === 503 || code === 504;
}

class WatchListUnsupported extends Error {}

/**
 * client-go's Reflector: lists a collection into a store, then watches from the list's resourceVersion and applies
 * every event. A 410 relists; connection failures resume the watch from the last resourceVersion; every other error
 * backs off and relists. It never gives up: run() returns only after its signal aborts.
 */
export class Reflector<T extends KubeObject> {
  private lastSyncRV = '';
  private readonly permissionLog = new PermissionLogDedup();
  private lastSyncRVUnavailable = false;
  private paginatedResult = false;
  private watchListUnsupported = false;
  private readonly backoff: Backoff;
  private readonly log: Logger;
  private readonly opts: Required<
    Omit<ReflectorOptions, 'backoff' | 'logger' | 'onError' | 'onWatchingChange' | 'shouldResync' | 'transform'>
  >;
  private running = false;
  // Whether its watch is up: from the server accepting it until a failure or a relist (a watch the server ends and
  // that is reopened at once stays up).
  private watching = false;
  // Ends the current backoff wait early (retryNow).
  private wake: (() => void) | undefined;

  constructor(
    private readonly lw: ListerWatcher<T>,
    private readonly store: ReflectorStore<T>,
    private readonly options: ReflectorOptions<T> = {},
  ) {
    this.opts = {
      name: options.name ?? 'reflector',
      resyncPeriodMs: options.resyncPeriodMs ?? 0,
      pageSize: options.pageSize ?? 500,
      minWatchTimeoutSeconds: options.minWatchTimeoutSeconds ?? 300,
      watchIdleTimeoutMs: options.watchIdleTimeoutMs ?? 150_000,
      useWatchList: options.useWatchList ?? false,
    };
    this.backoff = options.backoff ?? new Backoff();
    this.log = options.logger ?? rootLog.withName('reflector').withValues({ reflector: this.opts.name });
  }

  /** The resourceVersion of the last list or event applied ('' before the first). */
  lastSyncResourceVersion(): string {
    return this.lastSyncRV;
  }

  /** Whether its watch is open now: false while it lists, between watches and while it backs off after a failure. */
  isWatching(): boolean {
    return this.watching;
  }

  /**
   * Retries at once: the backoff starts over from its initial delay, and a wait between attempts ends now. For a
   * server that answers again after failures, so that the reflector does not wait out a backoff of up to 30 s.
   */
  retryNow(): void {
    this.backoff.reset();
    this.wake?.();
  }

  /** Lists and watches until signal aborts; resolves once every request and timer it started is gone. */
  async run(signal: AbortSignal): Promise<void> {
    if (this.running) throw new LifecycleError(`reflector ${this.opts.name} is already running`, 'AlreadyStarted');
    this.running = true;
    try {
      while (!signal.aborted) {
        try {
          await this.listAndWatch(signal);
        } catch (e) {
          if (signal.aborted) break;
          this.reportError(e, 'list and watch failed');
        }
        this.setWatching(false);
        if (!(await this.backOff(signal))) break;
      }
    } finally {
      this.running = false;
    }
  }

  private async listAndWatch(signal: AbortSignal): Promise<void> {
    let stream: AsyncIterator<WatchEvent<T>> | undefined;
    if (this.opts.useWatchList && !this.watchListUnsupported) {
      stream = await this.watchList(signal);
    }
    if (!stream) await this.list(signal);
    if (signal.aborted) return;
    const resync = this.startResync();
    try {
      await this.watchLoop(signal, stream);
    } finally {
      if (resync) clearInterval(resync);
    }
  }

  private startResync(): ReturnType<typeof setInterval> | undefined {
    const period = this.opts.resyncPeriodMs;
    if (!(period > 0)) return undefined;
    return setInterval(() => {
      if (this.options.shouldResync?.() ?? true) this.store.resync();
    }, period);
  }

  // --- list ---

  private relistResourceVersion(): string {
    if (this.lastSyncRVUnavailable) return '';
    return this.lastSyncRV === '' ? '0' : this.lastSyncRV;
  }

  private async list(signal: AbortSignal): Promise<void> {
    let result: { items: T[]; resourceVersion: string; paginated: boolean };
    try {
      result = await this.pagedList(this.relistResourceVersion(), signal);
    } catch (e) {
      if (!isGone(e)) throw e;
      // Our resourceVersion is compacted away: list the latest state instead (a consistent read).
      this.lastSyncRVUnavailable = true;
      result = await this.pagedList(this.relistResourceVersion(), signal);
    }
    if (signal.aborted) return;
    if (result.paginated) this.paginatedResult = true;
    this.lastSyncRVUnavailable = false;
    this.store.replace(result.items, result.resourceVersion);
    this.lastSyncRV = result.resourceVersion;
    this.log.debug('listed', { items: result.items.length, resourceVersion: result.resourceVersion });
  }

  private async pagedList(
    resourceVersion: string,
    signal: AbortSignal,
  ): Promise<{ items: T[]; resourceVersion: string; paginated: boolean }> {
    // client-go: page unless a specific resourceVersion is asked for, which the watch cache serves only unpaginated.
    let limit: number | undefined = this.opts.pageSize > 0 ? this.opts.pageSize : undefined;
    if (!this.paginatedResult && resourceVersion !== '' && resourceVersion !== '0') limit = undefined;
    const first = await this.listPage({ resourceVersion, limit, signal });
    const items = first.items;
    let rv = first.metadata.resourceVersion ?? '';
    let cont = first.metadata.continue;
    const paginated = Boolean(cont);
    while (cont) {
      let page;
      try {
        page = await this.listPage({ limit, continue: cont, signal });
      } catch (e) {
        if (!isGone(e)) throw e;
        // The continue token expired mid-list: fall back to one unpaginated list, as client-go's pager does.
        const full = await this.listPage({ resourceVersion, signal });
        return { items: full.items, resourceVersion: full.metadata.resourceVersion ?? '', paginated };
      }
      for (const item of page.items) items.push(item);
      rv = page.metadata.resourceVersion ?? rv;
      cont = page.metadata.continue;
    }
    return { items, resourceVersion: rv, paginated };
  }

  // One page, its items transformed as they are decoded; here, if the ListerWatcher did not apply the transform.
  private async listPage(opts: ListerWatcherListOptions<T>): Promise<ObjectList<T>> {
    const transform = this.options.transform;
    if (!transform) return this.lw.list(opts);
    let applied = 0;
    const page = await this.lw.list({
      ...opts,
      ...(dropsManagedFields(transform) ? { omitManagedFields: true } : {}),
      transformItem: (item) => {
        applied++;
        return transform(item);
      },
    });
    if (applied === 0) for (let i = 0; i < page.items.length; i++) page.items[i] = transform(page.items[i]!);
    return page;
  }

  // --- watch ---

  private watchTimeoutSeconds(): number {
    const min = this.opts.minWatchTimeoutSeconds;
    return Math.floor(min * (1 + Math.random()));
  }

  /** Opens a WatchList stream and consumes its initial state; returns the open stream, or undefined to LIST instead. */
  private async watchList(signal: AbortSignal): Promise<AsyncIterator<WatchEvent<T>> | undefined> {
    const events = this.lw.watch({
      sendInitialEvents: true,
      resourceVersionMatch: 'NotOlderThan',
      resourceVersion: this.lastSyncRVUnavailable ? '' : this.lastSyncRV,
      allowWatchBookmarks: true,
      timeoutSeconds: this.watchTimeoutSeconds(),
      signal,
      idleTimeoutMs: this.opts.watchIdleTimeoutMs,
    });
    const iter = events[Symbol.asyncIterator]();
    const initial: T[] = [];
    try {
      for (;;) {
        const r = await iter.next();
        if (r.done) throw new WatchListUnsupported('the stream ended before the initial-events-end bookmark');
        const ev = r.value;
        if (ev.type === 'ERROR') throw errorFromWatchEvent(ev.object);
        if (ev.type === 'ADDED') initial.push(this.options.transform ? this.options.transform(ev.object) : ev.object);
        else if (ev.type === 'BOOKMARK' && ev.object.metadata?.annotations?.[INITIAL_EVENTS_END] === 'true') {
          const rv = ev.object.metadata?.resourceVersion ?? '';
          this.store.replace(initial, rv);
          this.lastSyncRV = rv;
          this.lastSyncRVUnavailable = false;
          return iter;
        }
      }
    } catch (e) {
      await iter.return?.();
      if (signal.aborted) return undefined;
      const code = (e as { code?: unknown }).code;
      if (e instanceof WatchListUnsupported || code === 400 || code === 422 || code === 403 || code === 405) {
        this.watchListUnsupported = true;
        this.log.info('the server does not support WatchList; listing instead', { reason: String(e) });
        return undefined;
      }
      throw e;
    }
  }

  private async watchLoop(signal: AbortSignal, stream: AsyncIterator<WatchEvent<T>> | undefined): Promise<void> {
    while (!signal.aborted) {
      // A WatchList stream handed over is open already; a new one is up once the server accepts it (onOpen).
      if (stream) this.setWatching(true);
      const iter = stream ?? this.openWatch(signal);
      stream = undefined;
      const started = performance.now();
      let events = 0;
      try {
        for (;;) {
          const r = await iter.next();
          if (r.done || signal.aborted) break;
          // An event proves the watch open too, for a ListerWatcher that does not say when it opens.
          this.setWatching(true);
          this.apply(r.value);
          events++;
        }
      } catch (e) {
        this.setWatching(false);
        await iter.return?.().catch(() => undefined);
        if (signal.aborted) return;
        if (isGone(e)) {
          this.log.debug('watch expired; relisting', { resourceVersion: this.lastSyncRV });
          return;
        }
        if (isNetworkError(e) || isRetriableApiError(e)) {
          this.reportError(e, 'watch failed; resuming');
          this.setWatching(false);
          if (!(await this.backOff(signal))) return;
          continue;
        }
        throw e;
      }
      if (signal.aborted) return;
      if (events === 0 && performance.now() - started < 1000) {
        throw new TransportError(
          'very short watch: the watch closed within a second without any events',
          'BadResponse',
        );
      }
    }
  }

  private openWatch(signal: AbortSignal): AsyncIterator<WatchEvent<T>> {
    const events = this.lw.watch({
      resourceVersion: this.lastSyncRV,
      allowWatchBookmarks: true,
      timeoutSeconds: this.watchTimeoutSeconds(),
      signal,
      idleTimeoutMs: this.opts.watchIdleTimeoutMs,
      onOpen: () => {
        this.setWatching(true);
      },
    });
    return events[Symbol.asyncIterator]();
  }

  private apply(ev: WatchEvent<T>): void {
    if (ev.type === 'ERROR') throw errorFromWatchEvent(ev.object);
    const rv = ev.object.metadata?.resourceVersion;
    const transform = ev.type === 'BOOKMARK' ? undefined : this.options.transform;
    const obj = transform ? transform(ev.object) : ev.object;
    switch (ev.type) {
      case 'ADDED':
        this.store.add(obj);
        break;
      case 'MODIFIED':
        this.store.update(obj);
        break;
      case 'DELETED':
        this.store.delete(obj);
        break;
      case 'BOOKMARK':
        break;
      default:
        throw new TransportError(`unknown watch event type ${String((ev as { type: unknown }).type)}`, 'BadResponse');
    }
    if (rv) this.lastSyncRV = rv;
  }

  private setWatching(watching: boolean): void {
    if (this.watching === watching) return;
    this.watching = watching;
    this.options.onWatchingChange?.(watching);
  }

  /** Waits out the backoff's next delay; true unless `signal` aborted (retryNow ends the wait early, true). */
  private backOff(signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return Promise.resolve(false);
    const ms = this.backoff.next();
    return new Promise((resolve) => {
      const done = (proceed: boolean): void => {
        clearTimeout(timer);
        unregister();
        this.wake = undefined;
        resolve(proceed);
      };
      const timer = setTimeout(() => done(true), ms);
      const unregister = onAbort(signal, () => done(false));
      this.wake = () => done(true);
    });
  }

  private reportError(e: unknown, msg: string): void {
    if (this.options.onError) {
      try {
        this.options.onError(e);
      } catch {
        // An error callback must never stop the reflector.
      }
      return;
    }
    // A list or watch the ServiceAccount may not make fails on every retry: logged once, then at debug level.
    const missing = this.permissionLog.note(e);
    if (missing && !missing.first)
      this.log.debug(msg, { error: (e as Error).message, resourceVersion: this.lastSyncRV });
    else
      this.log.error(e, msg, {
        resourceVersion: this.lastSyncRV,
        ...(missing ? { permission: missing.permission } : {}),
      });
  }
}
