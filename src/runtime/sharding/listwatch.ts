import type { ListerWatcher } from '../cache/listwatch.js';
import { shardClientFilteredTotal } from '../metrics/sharding.js';
import type { KubeObject, WatchEvent } from '../rest/types.js';
import type { HashRange } from './hash.js';
import { inRanges, shardSelector, type ShardKey } from './selector.js';

/** Options of shardedListWatch. */
export interface ShardedListWatchOptions {
  /** Which field's hash places an object. */
  key: ShardKey;
  /** The ranges this ListerWatcher covers. */
  ranges: readonly HashRange[];
  /** The ring's name and the resource, for the metrics. */
  ring: string;
  resource: string;
  /** Told when the server sent an object outside the ranges: it does not apply the shardSelector (any more). */
  onForeign: () => void;
  /** Told after each list whether the server echoed the selector in metadata.shardInfo, and how many items it kept. */
  onList?: (list: { shardInfo: boolean; items: number }) => void;
  /** Told of each watch event kept (an object in the ranges). */
  onEvent?: () => void;
}

/**
 * Narrows `base` to `ranges`: every list and watch carries the shardSelector, and every item and event is checked
 * against the ranges here too, whatever the server did with the selector. A server that filters sends nothing to
 * drop; one that ignores the selector (the ShardedListAndWatch gate off, or turned off in a rollback while this runs)
 * is noticed by the first object outside the ranges (onForeign), and what it sends too much is dropped and counted in
 * shard_client_filtered_total, so the informer holds its partition's objects either way and misses no event of them.
 */
export function shardedListWatch<T extends KubeObject>(
  base: ListerWatcher<T>,
  opts: ShardedListWatchOptions,
): ListerWatcher<T> {
  const selector = shardSelector(opts.key, opts.ranges);
  const labels = { ring: opts.ring, resource: opts.resource };
  const keep = (obj: KubeObject): boolean => {
    if (inRanges(obj, opts.key, opts.ranges)) return true;
    shardClientFilteredTotal.labels(labels).inc();
    return false;
  };
  return {
    async list(listOpts) {
      const list = await base.list({ ...listOpts, shardSelector: selector });
      const kept = list.items.filter(keep);
      if (kept.length !== list.items.length) {
        list.items = kept;
        opts.onForeign();
      }
      opts.onList?.({ shardInfo: list.metadata.shardInfo?.selector !== undefined, items: kept.length });
      return list;
    },
    watch(watchOpts) {
      const events = base.watch({ ...watchOpts, shardSelector: selector });
      return (async function* filtered(): AsyncGenerator<WatchEvent<T>> {
        for await (const ev of events) {
          if (ev.type !== 'BOOKMARK' && ev.type !== 'ERROR') {
            if (!keep(ev.object)) {
              opts.onForeign();
              continue;
            }
            opts.onEvent?.();
          }
          yield ev;
        }
      })();
    },
  };
}
