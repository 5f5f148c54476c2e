// What the sharding integration test sees of a ring at work: every version of the ring's Leases and every reconcile
// write to the test's objects (ConfigMaps, or a kind made by `scaffold create api`), through two watches, all ordered
// by resourceVersion (one etcd, one sequence). From that it judges overlap: a write by replica R to an object of
// partition p is an overlap when R did not announce p at that point, or when another replica wrote the same object
// since R's announcement of p began. Lease versions also carry when they were seen (Date.now()), for the take-over
// and hand-over times.
import type { Resource, RestClient } from '../../../src/runtime/rest/index.js';
import { LeaseResource, type Lease } from '../../../src/runtime/manager/index.js';
import { PARTITIONS_ANNOTATION, RING_LABEL } from '../../../src/runtime/sharding/membership.js';
import { parsePartitions } from '../../../src/runtime/sharding/membership.js';
import type { KubeObject } from '../../../src/runtime/rest/index.js';

export const TEST_LABEL = 'shard.kubescaffold.dev/test';
export const DONE = 'shard.kubescaffold.dev/done';
export const BY = 'shard.kubescaffold.dev/by';

/** One reconcile's write, as the ConfigMap watch saw it. */
export interface ReconcileWrite {
  rv: number;
  key: string;
  by: string;
  done: string;
}

/** One version of a replica's Lease (partitions undefined: deleted), and when the watch delivered it. */
export interface LeaseVersion {
  rv: number;
  identity: string;
  partitions: Set<number> | undefined;
  seenAt: number;
}

/**
 * An object of the reconciled kind: its "want" is data.want for a ConfigMap, spec.foo for a scaffolded kind; a
 * reconcile is recorded in annotations, or (the fixture's SHARD_WRITE=status) in a Reconciled condition whose message
 * is '<done> by <replica>'.
 */
export type RecordedObject = KubeObject & {
  data?: Record<string, string>;
  spec?: { foo?: string };
  status?: { conditions?: { type: string; message?: string }[] };
};

/** What the object says of its last reconcile: annotations, else the Reconciled condition. */
function reconciledBy(o: RecordedObject): { done: string; by: string } {
  const a = o.metadata?.annotations ?? {};
  if (a[DONE] !== undefined) return { done: a[DONE], by: a[BY] ?? '' };
  const message = o.status?.conditions?.find((c) => c.type === 'Reconciled')?.message ?? '';
  const at = message.lastIndexOf(' by ');
  return at < 0 ? { done: '', by: '' } : { done: message.slice(0, at), by: message.slice(at + 4) };
}

/** A ConfigMap as last seen. */
export interface ObjectState {
  uid: string;
  namespace: string;
  want: string;
  done: string;
  by: string;
}

export class RingRecorder {
  readonly writes: ReconcileWrite[] = [];
  readonly objects = new Map<string, ObjectState>();
  readonly leases: LeaseVersion[] = [];
  private readonly leaseIdentity = new Map<string, string>();
  private readonly ac = new AbortController();

  constructor(
    private readonly client: RestClient,
    private readonly ring: string,
    private readonly leaseNamespace: string,
    private readonly resource: Resource<RecordedObject>,
  ) {}

  /** Lists the objects, then watches them and the ring's Leases from that point. */
  async start(): Promise<void> {
    const list = await this.client.list(this.resource, { labelSelector: TEST_LABEL });
    for (const o of list.items) this.note(o, false);
    const rv = list.metadata.resourceVersion!;
    void this.follow(
      rv,
      (from) =>
        this.client.watch(this.resource, {
          labelSelector: TEST_LABEL,
          resourceVersion: from,
          allowWatchBookmarks: true,
          signal: this.ac.signal,
        }),
      (o) => this.note(o, true),
    );
    void this.follow(
      rv,
      (from) =>
        this.client.watch(LeaseResource, {
          namespace: this.leaseNamespace,
          labelSelector: `${RING_LABEL}=${this.ring}`,
          resourceVersion: from,
          allowWatchBookmarks: true,
          signal: this.ac.signal,
        }),
      (l, type) => this.noteLease(l as Lease, type),
    );
  }

  stop(): void {
    this.ac.abort();
  }

  /**
   * Follows a watch from `rv` until stop(). The API server ends a watch whose reader it finds too slow (under a burst
   * of events, this test's own process can be): the watch then goes on from the last version seen, so no event is
   * missed. An ERROR event (the version too old to go on from) or a failure leaves the record incomplete: watchError.
   */
  private async follow(
    rv: string,
    open: (from: string) => AsyncIterable<{ type: string; object: unknown }>,
    on: (o: KubeObject, type: string) => void,
  ): Promise<void> {
    let from = rv;
    try {
      while (!this.ac.signal.aborted) {
        for await (const ev of open(from)) {
          if (ev.type === 'ERROR') throw new Error(`watch ERROR event: ${JSON.stringify(ev.object)}`);
          from = (ev.object as KubeObject).metadata?.resourceVersion ?? from;
          if (ev.type !== 'BOOKMARK') on(ev.object as KubeObject, ev.type);
        }
        this.watchRestarts++;
      }
    } catch (err) {
      if (!this.ac.signal.aborted) this.watchError = err;
    }
  }

  /** How many times a watch ended and went on from where it was. */
  watchRestarts = 0;

  /** The error a watch ended with, if one did before stop(): the record is then incomplete. */
  watchError: unknown;

  private note(o: RecordedObject, fromWatch: boolean): void {
    const key = `${o.metadata?.namespace}/${o.metadata?.name}`;
    const prev = this.objects.get(key);
    const state: ObjectState = {
      uid: o.metadata?.uid ?? '',
      namespace: o.metadata?.namespace ?? '',
      want: o.data?.want ?? o.spec?.foo ?? '',
      ...reconciledBy(o),
    };
    this.objects.set(key, state);
    if (fromWatch && state.by !== '' && (prev?.done !== state.done || prev?.by !== state.by)) {
      this.writes.push({ rv: Number(o.metadata?.resourceVersion), key, by: state.by, done: state.done });
    }
  }

  private noteLease(l: Lease, type: string): void {
    const name = l.metadata?.name ?? '';
    const identity = l.spec?.holderIdentity || this.leaseIdentity.get(name) || '';
    this.leaseIdentity.set(name, identity);
    this.leases.push({
      rv: Number(l.metadata?.resourceVersion),
      identity,
      partitions: type === 'DELETED' ? undefined : parsePartitions(l.metadata?.annotations?.[PARTITIONS_ANNOTATION]),
      seenAt: Date.now(),
    });
  }

  /**
   * When (Date.now()) every one of the `partitions` partitions came to be announced by one of the replicas in `live`,
   * and stayed so, counting only Lease versions seen from `since` on; undefined if that has not happened.
   */
  ownedByLiveSince(live: string[], partitions: number, since: number): number | undefined {
    const latest = new Map<string, Set<number> | undefined>();
    const owned = (): boolean =>
      Array.from({ length: partitions }, (_, p) => p).every((p) => live.some((id) => latest.get(id)?.has(p)));
    let ownedAt: number | undefined;
    for (const v of [...this.leases].sort((a, b) => a.rv - b.rv)) {
      latest.set(v.identity, v.partitions);
      if (v.seenAt >= since) ownedAt = owned() ? (ownedAt ?? v.seenAt) : undefined;
    }
    return ownedAt;
  }

  /** The partitions each replica announces in its latest Lease version (deleted Leases left out). */
  announced(): Map<string, Set<number>> {
    const latest = new Map<string, Set<number> | undefined>();
    for (const v of [...this.leases].sort((a, b) => a.rv - b.rv)) latest.set(v.identity, v.partitions);
    const out = new Map<string, Set<number>>();
    for (const [id, ps] of latest) if (ps) out.set(id, ps);
    return out;
  }

  /**
   * The overlapping reconciles: writes by a replica to an object of partition p while it did not announce p, or after
   * another replica wrote that object since its announcement began.
   */
  overlaps(partitionOf: (o: ObjectState) => number): string[] {
    const byIdentity = new Map<string, LeaseVersion[]>();
    for (const v of [...this.leases].sort((a, b) => a.rv - b.rv)) {
      const list = byIdentity.get(v.identity) ?? [];
      list.push(v);
      byIdentity.set(v.identity, list);
    }
    const writesByKey = new Map<string, ReconcileWrite[]>();
    for (const w of this.writes) writesByKey.set(w.key, [...(writesByKey.get(w.key) ?? []), w]);
    const found: string[] = [];
    for (const [key, writes] of writesByKey) {
      const obj = this.objects.get(key);
      if (!obj) continue;
      const p = partitionOf(obj);
      writes.sort((a, b) => a.rv - b.rv);
      for (const w of writes) {
        const versions = (byIdentity.get(w.by) ?? []).filter((v) => v.rv < w.rv);
        // The announcement in force at the write, and where its unbroken run began.
        let start: number | undefined;
        for (const v of versions) {
          if (v.partitions?.has(p)) start ??= v.rv;
          else start = undefined;
        }
        if (start === undefined) {
          found.push(`${key} (partition ${p}) written by ${w.by} at rv ${w.rv} without announcing the partition`);
          continue;
        }
        const other = writes.find((o) => o.by !== w.by && o.rv > start && o.rv < w.rv);
        if (other)
          found.push(
            `${key} (partition ${p}) written by ${other.by} at rv ${other.rv} and by ${w.by} at rv ${w.rv}, whose hold began at rv ${start}`,
          );
      }
    }
    return found;
  }
}
