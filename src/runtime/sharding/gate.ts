import type { InformerCache } from '../cache/informer-cache.js';
import { isDeletedFinalStateUnknown } from '../cache/keys.js';
import type { Admission, RequestGate } from '../controller/controller.js';
import type { RequestQueue } from '../controller/events.js';
import { shardReconcilesTotal, shardRequestsDroppedTotal } from '../metrics/sharding.js';
import type { Request } from '../reconcile/index.js';
import type { KubeObject, Resource } from '../rest/types.js';
import { fnv1a64, partitionOfHash } from './hash.js';
import type { ShardRing } from './ring.js';
import { shardKeyValue, type ShardKey } from './selector.js';

const MAX_TOMBSTONES = 10_000;

/** Options of a ShardGate. */
export interface ShardGateOptions {
  ring: ShardRing;
  ringName: string;
  cache: InformerCache;
  /** The controller's for() kind: requests name objects of it. */
  resource: Resource;
  key: ShardKey;
  partitions: number;
  controller: string;
}

/**
 * Admits a sharded controller's requests on the replica holding their object's partition, and no other. By
 * namespace, the partition follows from the request itself. By uid it is read from the object in this replica's
 * cache, which holds only its own partitions (a request whose object is not there is another replica's), or, for an
 * object just deleted, from its last state. When a partition opens, every object of it is queued, so requests
 * dropped while it was starting are not lost.
 */
export class ShardGate implements RequestGate {
  private readonly queues: RequestQueue[] = [];
  private readonly tombstones = new Map<string, number>();

  constructor(private readonly opts: ShardGateOptions) {
    if (opts.key === 'uid') {
      opts.cache.getInformer(opts.resource).addEventHandler({
        onDelete: (obj) => {
          const o = isDeletedFinalStateUnknown(obj) ? obj.obj : obj;
          this.tombstones.set(keyOf(o), this.partitionOfObject(o));
          if (this.tombstones.size > MAX_TOMBSTONES) this.tombstones.delete(this.tombstones.keys().next().value!);
        },
      });
    }
  }

  bind(queue: RequestQueue): void {
    this.queues.push(queue);
  }

  admit(req: Request): Admission | undefined {
    const p = this.partitionOf(req);
    const ticket = p === undefined ? undefined : this.opts.ring.enter(p);
    if (!ticket) {
      shardRequestsDroppedTotal.labels({ ring: this.opts.ringName, controller: this.opts.controller }).inc();
      return undefined;
    }
    shardReconcilesTotal
      .labels({ ring: this.opts.ringName, controller: this.opts.controller, partition: String(ticket.partition) })
      .inc();
    let left = false;
    return {
      run: (fn) => this.opts.ring.runAdmitted(ticket, fn),
      leave: () => {
        if (left) return;
        left = true;
        this.tombstones.delete(`${req.namespace ?? ''}/${req.name}`);
        this.opts.ring.leave(ticket);
      },
    };
  }

  /** Queues every cached object of `partition` (it has just opened on this replica). */
  activated(partition: number): void {
    const objects = this.opts.cache.objectsInPartition(this.opts.resource, partition);
    for (const q of this.queues) {
      for (const o of objects) q.add({ namespace: o.metadata?.namespace ?? '', name: o.metadata?.name ?? '' });
    }
  }

  private partitionOf(req: Request): number | undefined {
    if (this.opts.key === 'namespace') return partitionOfHash(fnv1a64(req.namespace ?? ''), this.opts.partitions);
    const obj = this.opts.cache.peek(this.opts.resource, req);
    if (obj) return this.partitionOfObject(obj);
    return this.tombstones.get(`${req.namespace ?? ''}/${req.name}`);
  }

  private partitionOfObject(obj: KubeObject): number {
    return partitionOfHash(fnv1a64(shardKeyValue(obj, this.opts.key)), this.opts.partitions);
  }
}

function keyOf(obj: KubeObject): string {
  return `${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`;
}
