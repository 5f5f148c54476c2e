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
  /** Told after each list whether the server applied the shardSelector (it says so in the log and the gauge). */
  onServerFiltering: (filters: boolean) => void;
}

/**
 * Narrows `base` to `ranges`: every list and watch carries the shardSelector. When a list comes back without
 * shardInfo the server ignored it (the ShardedListAndWatch gate is off, or the server predates it): items and watch
 * events are then filtered here with the same hash. That is as correct, but saves no traffic: onServerFiltering
 * hears of it, and shard_client_filtered_total counts what was dropped here.
 */
export function shardedListWatch<T extends KubeObject>(
  base: ListerWatcher<T>,
  opts: ShardedListWatchOptions,
): ListerWatcher<T> {
  const selector = shardSelector(opts.key, opts.ranges);
  const labels = { ring: opts.ring, resource: opts.resource };
  let serverFilters = false;
  const keep = (obj: KubeObject): boolean => {
    if (serverFilters || inRanges(obj, opts.key, opts.ranges)) return true;
    shardClientFilteredTotal.labels(labels).inc();
    return false;
  };
  return {
    async list(listOpts) {
      const list = await base.list({ ...listOpts, shardSelector: selector });
      serverFilters = list.metadata.shardInfo?.selector !== undefined;
      opts.onServerFiltering(serverFilters);
      if (!serverFilters) list.items = list.items.filter(keep);
      return list;
    },
    watch(watchOpts) {
      const events = base.watch({ ...watchOpts, shardSelector: selector });
      return (async function* filtered(): AsyncGenerator<WatchEvent<T>> {
        for await (const ev of events) {
          if (ev.type !== 'BOOKMARK' && ev.type !== 'ERROR' && !keep(ev.object)) continue;
          yield ev;
        }
      })();
    },
  };
}
