import type { ListerWatcherFactory } from '../../../src/runtime/cache/index.js';
import type { KubeObject, ObjectList, WatchEvent, WatchOptions } from '../../../src/runtime/rest/types.js';

type Event = { rv: number; type: 'ADDED' | 'MODIFIED' | 'DELETED'; object: KubeObject };

/** An in-memory API for one kind: list and watch (replaying from a resourceVersion), as a reflector needs. */
export class FakeKindApi {
  private readonly objects = new Map<string, KubeObject>();
  private readonly events: Event[] = [];
  private rv = 1;
  private wake: (() => void)[] = [];
  lists = 0;

  private key(o: KubeObject): string {
    return `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;
  }

  private record(type: Event['type'], o: KubeObject): void {
    const rv = ++this.rv;
    const obj = { ...structuredClone(o), metadata: { ...o.metadata, resourceVersion: String(rv) } };
    if (type === 'DELETED') this.objects.delete(this.key(o));
    else this.objects.set(this.key(o), obj);
    this.events.push({ rv, type, object: obj });
    for (const w of this.wake.splice(0)) w();
  }

  upsert(o: KubeObject): void {
    this.record(this.objects.has(this.key(o)) ? 'MODIFIED' : 'ADDED', o);
  }

  remove(o: KubeObject): void {
    this.record('DELETED', this.objects.get(this.key(o)) ?? o);
  }

  factory(): ListerWatcherFactory {
    return (<T extends KubeObject>(_res: unknown, scope: { namespace?: string }) => {
      const inScope = (o: KubeObject): boolean => !scope.namespace || o.metadata?.namespace === scope.namespace;
      return {
        list: async (): Promise<ObjectList<T>> => {
          this.lists++;
          return {
            items: [...this.objects.values()].filter(inScope).map((o) => structuredClone(o) as T),
            metadata: { resourceVersion: String(this.rv) },
          };
        },
        watch: (opts: WatchOptions): AsyncIterable<WatchEvent<T>> => {
          const self = this as FakeKindApi;
          let from = Number(opts.resourceVersion ?? '0');
          return {
            async *[Symbol.asyncIterator]() {
              while (!opts.signal?.aborted) {
                const next = self.events.filter((e) => e.rv > from);
                for (const e of next) {
                  from = e.rv;
                  if (inScope(e.object)) yield { type: e.type, object: structuredClone(e.object) as T };
                }
                await new Promise<void>((resolve) => {
                  self.wake.push(resolve);
                  opts.signal?.addEventListener('abort', () => resolve(), { once: true });
                });
              }
            },
          };
        },
      };
    }) as ListerWatcherFactory;
  }
}
