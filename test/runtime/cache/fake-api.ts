import { ApiError } from '../../../src/runtime/rest/index.js';
import type { KubeObject, ObjectList, WatchEvent, WatchOptions } from '../../../src/runtime/rest/index.js';
import type { ListerWatcher, ListerWatcherListOptions } from '../../../src/runtime/cache/index.js';

export interface Obj extends KubeObject {
  spec?: { value?: number };
}

interface Watcher {
  queue: WatchEvent<Obj>[];
  wake?: () => void;
  fail?: Error;
  closed: boolean;
}

export function gone(): ApiError {
  return new ApiError({ kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version' });
}

const clone = <T>(o: T): T => structuredClone(o);

/**
 * An in-memory API server for one resource: resourceVersions, list pagination, watch history with compaction,
 * and knobs to break or end watches. Pure: no network, no timers.
 */
export class FakeApi implements ListerWatcher<Obj> {
  rv = 0;
  readonly objects = new Map<string, Obj>();
  private history: { rv: number; type: 'ADDED' | 'MODIFIED' | 'DELETED'; obj: Obj }[] = [];
  private compactedRV = 0;
  private readonly watchers = new Set<Watcher>();
  readonly listCalls: ListerWatcherListOptions[] = [];
  readonly watchCalls: WatchOptions[] = [];
  /** Errors thrown by the next list calls, in order. */
  listErrors: Error[] = [];
  /** Errors thrown when the next watches start, in order. */
  watchErrors: Error[] = [];

  private key(o: Obj): string {
    return `${o.metadata?.namespace ?? ''}/${o.metadata?.name}`;
  }

  private record(type: 'ADDED' | 'MODIFIED' | 'DELETED', obj: Obj): Obj {
    this.rv++;
    const stored = clone({ ...obj, metadata: { ...obj.metadata, resourceVersion: String(this.rv) } });
    if (type === 'DELETED') this.objects.delete(this.key(obj));
    else this.objects.set(this.key(obj), stored);
    this.history.push({ rv: this.rv, type, obj: stored });
    for (const w of this.watchers) this.push(w, { type, object: clone(stored) });
    return stored;
  }

  create(name: string, value = 0, namespace = 'ns'): Obj {
    return this.record('ADDED', {
      apiVersion: 'v1',
      kind: 'Obj',
      metadata: { name, namespace, uid: `uid-${name}` },
      spec: { value },
    });
  }

  update(name: string, value: number, namespace = 'ns'): Obj {
    const cur = this.objects.get(`${namespace}/${name}`);
    if (!cur) throw new Error(`no ${name}`);
    return this.record('MODIFIED', { ...cur, spec: { value } });
  }

  remove(name: string, namespace = 'ns'): void {
    const cur = this.objects.get(`${namespace}/${name}`);
    if (!cur) throw new Error(`no ${name}`);
    this.record('DELETED', cur);
  }

  /** Forgets the history: watches from older resourceVersions get 410. */
  compact(): void {
    this.compactedRV = this.rv;
    this.history = [];
  }

  /** Sends a bookmark to every open watch. */
  bookmark(): void {
    for (const w of this.watchers)
      this.push(w, { type: 'BOOKMARK', object: { kind: 'Obj', metadata: { resourceVersion: String(this.rv) } } });
  }

  /** Fails every open watch with err (a dropped connection, say). */
  breakWatches(err: Error): void {
    for (const w of this.watchers) {
      w.fail = err;
      w.wake?.();
    }
  }

  /** Ends every open watch cleanly (the server's timeout). */
  closeWatches(): void {
    for (const w of this.watchers) {
      w.closed = true;
      w.wake?.();
    }
  }

  get openWatches(): number {
    return this.watchers.size;
  }

  async list(opts: ListerWatcherListOptions): Promise<ObjectList<Obj>> {
    this.listCalls.push({ ...opts, signal: undefined });
    const err = this.listErrors.shift();
    if (err) throw err;
    // Lists are "not older than" their resourceVersion and served from the latest state, as the watch cache does.
    const all = [...this.objects.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, o]) => clone(o));
    const start = opts.continue ? Number(opts.continue) : 0;
    const end = opts.limit ? Math.min(all.length, start + opts.limit) : all.length;
    return {
      items: all.slice(start, end),
      metadata: { resourceVersion: String(this.rv), continue: end < all.length ? String(end) : undefined },
    };
  }

  watch(opts: WatchOptions): AsyncIterable<WatchEvent<Obj>> {
    this.watchCalls.push({ ...opts, signal: undefined });
    const err = this.watchErrors.shift();
    const from = Number(opts.resourceVersion || this.rv);
    return this.stream(opts, from, err);
  }

  private stream(opts: WatchOptions, from: number, err: Error | undefined): AsyncIterable<WatchEvent<Obj>> {
    const api = { compactedRV: this.compactedRV, history: this.history, watchers: this.watchers };
    return {
      async *[Symbol.asyncIterator]() {
        if (err) throw err;
        const w: Watcher = { queue: [], closed: false };
        if (from < api.compactedRV) {
          yield {
            type: 'ERROR',
            object: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version' },
          };
          return;
        }
        for (const h of api.history) if (h.rv > from) w.queue.push({ type: h.type, object: clone(h.obj) });
        api.watchers.add(w);
        // Accepted, as a server's response headers say before any event.
        opts.onOpen?.();
        const onAbort = (): void => w.wake?.();
        opts.signal?.addEventListener('abort', onAbort);
        try {
          for (;;) {
            if (opts.signal?.aborted) return;
            if (w.fail) throw w.fail;
            const ev = w.queue.shift();
            if (ev) {
              yield ev;
              continue;
            }
            if (w.closed) return;
            await new Promise<void>((r) => (w.wake = r));
            w.wake = undefined;
          }
        } finally {
          api.watchers.delete(w);
          opts.signal?.removeEventListener('abort', onAbort);
        }
      },
    };
  }

  private push(w: Watcher, ev: WatchEvent<Obj>): void {
    w.queue.push(ev);
    w.wake?.();
  }
}

export function networkError(code = 'ECONNRESET'): Error {
  return Object.assign(new Error(`connection failed: ${code}`), { code });
}
