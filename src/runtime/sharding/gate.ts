import type { InformerCache } from '../cache/informer-cache.js';
import { isDeletedFinalStateUnknown } from '../cache/keys.js';
import type { Admission, ControllerQueue, GateQueueOptions, RequestGate } from '../controller/controller.js';
import { shardReconcilesTotal, shardRequestsDroppedTotal } from '../metrics/sharding.js';
import { workqueueMetricsProviderFor } from '../metrics/workqueue.js';
import { PartitionedQueue } from '../workqueue/partitioned-queue.js';
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
 * object just deleted, from its last state. The controller's queue is one queue per partition this replica holds
 * (PartitionedQueue): requests of any other partition are dropped as they come. When a partition opens, its queue
 * opens and every object of it is queued, so requests dropped while it was starting are not lost; when it closes,
 * its queue and what waits in it go at once.
 */
export class ShardGate implements RequestGate {
  private readonly queues: PartitionedQueue<Request>[] = [];
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

  newQueue(opts: GateQueueOptions): ControllerQueue {
    const { rateLimiter } = opts;
    const queue = new PartitionedQueue<Request>({
      partitionOf: (req) => this.partitionOf(req),
      keyOf: opts.keyOf,
      name: opts.name,
      ...(opts.recordMetrics ? { metricsProvider: workqueueMetricsProviderFor(opts.name) } : {}),
      ...(rateLimiter ? { newRateLimiter: () => rateLimiter } : {}),
      onDrop: () => this.dropped(),
      usePriorityQueue: opts.usePriorityQueue,
    });
    // A controller started after partitions opened gets their objects from its sources' initial adds.
    for (const p of this.opts.ring.activePartitions()) queue.open(p);
    this.queues.push(queue);
    return queue;
  }

  admit(req: Request): Admission | undefined {
    const p = this.partitionOf(req);
    const ticket = p === undefined ? undefined : this.opts.ring.enter(p);
    if (!ticket) {
      this.dropped();
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

  /** Opens the partition's queues and queues every cached object of it (it has just opened on this replica). */
  activated(partition: number): void {
    const objects = this.opts.cache.objectsInPartition(this.opts.resource, partition);
    for (const q of this.queues) {
      q.open(partition);
      for (const o of objects) q.add({ namespace: o.metadata?.namespace ?? '', name: o.metadata?.name ?? '' });
    }
  }

  /** Closes the partition's queues, dropping what waits in them (it is closing on this replica). */
  deactivated(partition: number): void {
    for (const q of this.queues) q.close(partition);
  }

  private dropped(): void {
    shardRequestsDroppedTotal.labels({ ring: this.opts.ringName, controller: this.opts.controller }).inc();
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
