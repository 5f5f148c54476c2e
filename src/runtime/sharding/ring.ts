import { AsyncLocalStorage } from 'node:async_hooks';
import { realClock, type Clock } from '../clock.js';
import { ConfigurationError, ShardTermEndedError, TimeoutError } from '../errors.js';
import { LeaseResource, microTime, type Lease } from '../leaderelection/lease.js';
import { leaderElectionNamespace } from '../leaderelection/namespace.js';
import { log as rootLog, type Logger } from '../log/index.js';
import { shardHandoversTotal, shardPartitionHeld } from '../metrics/sharding.js';
import { isNotFound } from '../rest/errors.js';
import type { KubeObject, ObjectKey, ObjectList, Resource, WatchEvent } from '../rest/types.js';
import { assignPartitions } from './assignment.js';
import { fnv1a64 } from './hash.js';
import {
  EXPIRED_ANNOTATION,
  formatPartitions,
  MemberObserver,
  PARTITIONS_ANNOTATION,
  RING_LABEL,
} from './membership.js';
import { onAbort } from '../internal/abort-fanout.js';

/** What the ring needs from a client: its Leases, read consistently, and its own written with optimistic locking. */
export interface RingClient {
  /** Lists the ring's Leases (no resourceVersion: a consistent read). */
  list<T extends KubeObject>(
    res: Resource<T>,
    opts: { namespace?: string; labelSelector?: string; signal?: AbortSignal },
  ): Promise<ObjectList<T>>;
  /** Creates this replica's Lease. */
  create<T extends KubeObject>(res: Resource<T>, obj: T, opts?: { signal?: AbortSignal }): Promise<T>;
  /** Renews it; a stale resourceVersion fails with 409. */
  update<T extends KubeObject>(res: Resource<T>, obj: T, opts?: { signal?: AbortSignal }): Promise<T>;
  /** Deletes it on a clean stop. */
  delete<T extends KubeObject>(
    res: Resource<T>,
    key: ObjectKey,
    opts?: { signal?: AbortSignal; preconditions?: { resourceVersion?: string } },
  ): Promise<void>;
  /**
   * Watches the ring's Leases from a list's resourceVersion. Optional: with it a replica reacts to a join, a leave or
   * a handover at once; without it, at its next renewal.
   */
  watch?<T extends KubeObject>(
    res: Resource<T>,
    opts: {
      namespace?: string;
      labelSelector?: string;
      resourceVersion?: string;
      allowWatchBookmarks?: boolean;
      signal?: AbortSignal;
    },
  ): AsyncIterable<WatchEvent<T>>;
}

/** What the ring asks of the cache and the controllers as partitions come and go. */
export interface PartitionHooks {
  /** Starts the partition's informers; resolves true once they have listed, false if `signal` aborted first. */
  start(partition: number, signal: AbortSignal): Promise<boolean>;
  /** Stops the partition's informers and drops their objects (no delete events). */
  stop(partition: number): Promise<void>;
  /** The partition is open: controllers enqueue its objects (requests dropped while it was starting come back). */
  activated(partition: number): void;
  /** The partition is closing (no reconcile is admitted into it any more): controllers drop what is queued for it. */
  deactivated(partition: number): void;
}

/** Options of a ShardRing. */
export interface ShardRingOptions {
  /** A client of its own, not fenced by the ring (its writes are the renewals). */
  client: RingClient;
  /** Namespace of the ring's Leases. */
  namespace: string;
  /** The ring's name: the Leases' label value and their name prefix. */
  ring: string;
  /** This replica's identity (the Lease's holderIdentity). */
  identity: string;
  /** Into how many equal hash ranges the space is cut; every replica of a ring must use the same number. */
  partitions: number;
  /** How long a Lease lives without renewal (ms). */
  leaseDuration: number;
  /** How long after the last renewal sent this replica may still act (ms); less than leaseDuration. */
  renewDeadline: number;
  /** Time between renewals (ms). */
  retryPeriod: number;
  /** Starts and stops partitions. */
  hooks: PartitionHooks;
  /** Default the real clock. */
  clock?: Clock;
  /** Default the root logger. */
  log?: Logger;
}

type State = 'claimed' | 'starting' | 'active' | 'releasing';

interface Held {
  state: State;
  inflight: number;
  drained: (() => void) | undefined;
  starting: AbortController | undefined;
  releasing: Promise<void> | undefined;
}

/** A reconcile admitted into a partition; its writes are fenced by the partition and the term it started in. */
export interface ShardTicket {
  readonly partition: number;
  readonly epoch: number;
}

/** A ring's name, partition count and Lease timings (ms), as every replica of the ring must share them. */
export interface RingTimings {
  ring: string;
  partitions: number;
  leaseDuration: number;
  renewDeadline: number;
  retryPeriod: number;
}

/**
 * A ring's options with their defaults filled in, the same for a ring of objects (ManagerOptions.sharding) and of
 * clusters: 12 partitions (even for 1, 2, 3, 4 and 6 replicas), and leader election's 15 s Lease, 10 s renew deadline
 * and 2 s retry period.
 */
export function ringTimings(options: { ring: string } & Partial<Omit<RingTimings, 'ring'>>): RingTimings {
  return {
    ring: options.ring,
    partitions: options.partitions ?? 12,
    leaseDuration: options.leaseDuration ?? 15_000,
    renewDeadline: options.renewDeadline ?? 10_000,
    retryPeriod: options.retryPeriod ?? 2_000,
  };
}

/** The namespace of a ring's Leases: the configured one, or the pod's own. `ring` names the ring in the error. */
export function ringLeaseNamespace(configured: string | undefined, ring: 'shard ring' | 'cluster ring'): string {
  try {
    return leaderElectionNamespace(configured);
  } catch {
    throw new ConfigurationError(
      `unable to find the namespace for the ${ring}'s Leases: not running in-cluster, please set sharding.namespace`,
    );
  }
}

/** Throws ConfigurationError, naming the option, for a ring name, partition count or timings that cannot work. */
export function validateRingOptions(opts: RingTimings): void {
  if (!/^[a-z0-9]([-a-z0-9]{0,38}[a-z0-9])?$/.test(opts.ring))
    throw new ConfigurationError(
      `sharding.ring "${opts.ring}" must be a DNS label of at most 40 characters (lowercase letters, digits, '-')`,
    );
  if (!(Number.isInteger(opts.partitions) && opts.partitions >= 1 && opts.partitions <= 1024))
    throw new ConfigurationError(`sharding.partitions must be an integer from 1 to 1024, got ${opts.partitions}`);
  if (!(opts.leaseDuration > opts.renewDeadline))
    throw new ConfigurationError('sharding.leaseDuration must be greater than sharding.renewDeadline');
  if (!(opts.renewDeadline > 1.2 * opts.retryPeriod))
    throw new ConfigurationError('sharding.renewDeadline must be greater than sharding.retryPeriod*1.2');
}

const ticketStore = new AsyncLocalStorage<{ ring: ShardRing; ticket: ShardTicket }>();

/**
 * One replica's place in a shard ring. It keeps its own Lease (labelled with the ring's name), reads every Lease of
 * the ring, assigns the partitions over the live ones (assignPartitions), and hands partitions over so that no two
 * replicas act on one at once:
 * - a partition is announced in the Lease's partitions annotation before it is started and until it is stopped;
 * - a replica claims a partition only when no live Lease announces it, writes the claim, reads all Leases again and
 *   withdraws if another live Lease announces it (so of two racing claimers at least one sees the other);
 * - a Lease is dead once unchanged for its duration as observed locally, and the holder's term ends renewDeadline
 *   after its last renewal was sent (the leader elector's fencing rule), before anyone can see it dead;
 * - a partition is released by closing it to new reconciles, waiting for those in flight, stopping its informers,
 *   and only then dropping it from the annotation.
 */
export class ShardRing {
  /** This replica's Lease. */
  readonly leaseName: string;
  readonly identity: string;
  private readonly opts: ShardRingOptions;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly observer: MemberObserver;
  private readonly held = new Map<number, Held>();
  private readonly requestTimeout: number;
  // Fencing: the monotonic time until which this replica may act, and which term it is (reconciles admitted in an
  // earlier term may not write in a later one).
  private termEnd = 0;
  private inTermFlag = false;
  private epoch = 0;
  private draining = false;
  private kicked = false;
  private wake: AbortController | undefined;
  private lastOwnVersion: string | undefined;
  // The resourceVersion of the last list of the Leases, for the watch to start from, and who waits for the next list.
  private lastListVersion: string | undefined;
  private listWaiters: (() => void)[] = [];

  constructor(opts: ShardRingOptions) {
    validateRingOptions(opts);
    this.opts = opts;
    this.identity = opts.identity;
    this.clock = opts.clock ?? realClock;
    this.observer = new MemberObserver(this.clock);
    this.leaseName = `${opts.ring}-${fnv1a64(opts.identity).toString(16).padStart(16, '0')}`;
    this.requestTimeout = Math.max(1000, opts.renewDeadline / 2);
    this.log = (opts.log ?? rootLog).withName('sharding').withValues({ ring: opts.ring });
  }

  /** The partitions this replica reconciles now. */
  activePartitions(): number[] {
    return [...this.held.entries()].filter(([, h]) => h.state === 'active').map(([p]) => p);
  }

  /** The members the last list showed (live ones), by identity. */
  liveMembers(): string[] {
    return this.observer
      .members()
      .filter((m) => m.live)
      .map((m) => m.identity);
  }

  /**
   * Admits one reconcile into `partition` if this replica holds it and its term runs: returns the ticket to pass to
   * runAdmitted and to leave(), or undefined (another replica owns it, or it is still starting).
   */
  enter(partition: number): ShardTicket | undefined {
    if (!this.inTerm()) return undefined;
    const h = this.held.get(partition);
    if (!h || h.state !== 'active') return undefined;
    h.inflight++;
    return { partition, epoch: this.epoch };
  }

  /** Ends a reconcile admitted by enter(); a partition being released waits for these. */
  leave(ticket: ShardTicket): void {
    const h = this.held.get(ticket.partition);
    if (!h) return;
    h.inflight--;
    if (h.inflight === 0) h.drained?.();
  }

  /** Runs `fn` as the admitted reconcile `ticket`, so checkTerm() can fence the writes it sends. */
  runAdmitted<T>(ticket: ShardTicket, fn: () => Promise<T>): Promise<T> {
    return ticketStore.run({ ring: this, ticket }, fn);
  }

  /**
   * Throws ShardTermEndedError when called from a reconcile this ring admitted whose term has ended or whose
   * partition is no longer held; does nothing elsewhere. The manager calls it before each write its client sends.
   */
  checkTerm(): void {
    const current = ticketStore.getStore();
    if (!current || current.ring !== this) return;
    const { ticket } = current;
    if (ticket.epoch !== this.epoch || !this.inTerm() || !this.held.has(ticket.partition)) {
      throw new ShardTermEndedError();
    }
  }

  /** Whether this replica's term runs; a term found to have run out ends here (the process may have been paused). */
  private inTerm(): boolean {
    if (!this.inTermFlag) return false;
    if (this.clock.now() < this.termEnd) return true;
    this.endTerm(`no renewal for ${this.opts.renewDeadline} ms: another replica may hold our partitions`);
    return false;
  }

  /** Closes every partition at once; they are drained and stopped before this replica renews again. */
  private endTerm(why: string): void {
    if (!this.inTermFlag) return;
    this.inTermFlag = false;
    this.termEnd = 0;
    this.epoch++;
    this.draining = this.held.size > 0;
    for (const [p, h] of this.held) this.close(p, h);
    this.log.info('term ended: stopping every partition', { reason: why });
    this.kick();
  }

  /** Runs the next cycle now instead of after retryPeriod (a partition was released, a term ended). */
  private kick(): void {
    this.kicked = true;
    this.wake?.abort();
  }

  /** Marks a partition as being released: no reconcile is admitted into it from now on. */
  private close(p: number, h: Held): void {
    if (h.state === 'releasing') return;
    const wasActive = h.state === 'active';
    h.state = 'releasing';
    if (wasActive) this.opts.hooks.deactivated(p);
    h.starting?.abort();
    shardPartitionHeld.labels({ ring: this.opts.ring, partition: String(p) }).set(0);
  }

  /**
   * Runs the ring until `signal` aborts: renews the Lease every retryPeriod, hands partitions over as members come
   * and go; on the way out stops every partition and deletes the Lease, so the others take over at once.
   */
  async run(signal: AbortSignal): Promise<void> {
    const watchdog = this.watchTerm(signal);
    const watcher = this.watchLeases(signal);
    try {
      while (!signal.aborted) {
        this.kicked = false;
        try {
          await this.cycle(signal);
        } catch (err) {
          if (!signal.aborted) this.log.error(err, 'shard ring cycle failed');
        }
        if (!this.kicked) {
          this.wake = new AbortController();
          await this.clock.sleep(this.nextCycleIn(), AbortSignal.any([signal, this.wake.signal]));
        }
      }
    } finally {
      for (const [p, h] of this.held) this.close(p, h);
      await Promise.all([...this.held.keys()].map((p) => this.release(p)));
      await watchdog;
      await watcher;
      await this.deleteOwnLease();
    }
  }

  /**
   * How long until the next cycle: retryPeriod, or less when another member's Lease expires sooner if it does not
   * renew, so that its partitions are taken over then and not up to a retryPeriod later.
   */
  private nextCycleIn(): number {
    const expiry = this.observer.nextExpiry(this.identity);
    // Past already: the last cycle did not get to list (a failing server); no sooner than usual then.
    const left = expiry === undefined ? 0 : expiry - this.clock.now() + 1;
    return left > 0 ? Math.min(this.opts.retryPeriod, left) : this.opts.retryPeriod;
  }

  /**
   * Watches the ring's Leases (when the client can) and runs a cycle at once when a member joins, leaves, or changes
   * what it announces or finds expired; a renewal alone only starts its Lease's duration afresh. A shortcut, never a
   * decision: every cycle still lists the Leases and decides from that list.
   */
  private async watchLeases(signal: AbortSignal): Promise<void> {
    const client = this.opts.client;
    if (!client.watch) return;
    const said = new Map<string, string>();
    let from: string | undefined;
    while (!signal.aborted) {
      if (from === undefined) {
        // From the next list's version: the first cycle's, or after an error the next cycle's (so a watch the server
        // refuses is retried once per cycle, not in a loop).
        await new Promise<void>((resolve) => {
          // Unregistered when the list comes: this loop waits once per cycle on the same long-lived signal.
          const unregister = onAbort(signal, resolve);
          this.listWaiters.push(() => {
            unregister();
            resolve();
          });
        });
        from = this.lastListVersion;
      }
      if (from !== undefined) {
        try {
          const events = client.watch(LeaseResource, {
            namespace: this.opts.namespace,
            labelSelector: `${RING_LABEL}=${this.opts.ring}`,
            resourceVersion: from,
            allowWatchBookmarks: true,
            signal,
          });
          let delivered = 0;
          for await (const ev of events) {
            delivered++;
            // An ERROR (410 Gone: too old a version) starts again from the next list's version.
            if (ev.type === 'ERROR') {
              from = undefined;
              break;
            }
            const lease = ev.object as Lease;
            from = lease.metadata?.resourceVersion ?? from;
            const name = lease.metadata?.name ?? '';
            if (ev.type === 'BOOKMARK' || name === this.leaseName) continue;
            if (ev.type === 'DELETED') {
              said.delete(name);
              this.kick();
              continue;
            }
            this.observer.note(lease);
            const a = lease.metadata?.annotations ?? {};
            const now = `${lease.spec?.holderIdentity ?? ''}|${a[PARTITIONS_ANNOTATION] ?? ''}|${a[EXPIRED_ANNOTATION] ?? ''}`;
            if (said.get(name) !== now) {
              said.set(name, now);
              this.kick();
            }
          }
          // Closed by the server; at once again only if it was a real watch (no loop on one that ends at once).
          if (delivered === 0) from = undefined;
        } catch (err) {
          if (signal.aborted) return;
          this.log.debug('the ring lease watch failed; watching again after the next list', { error: String(err) });
          from = undefined;
        }
      }
    }
  }

  /** Ends the term when its end passes without a renewal (a timer, so a paused process notices on resuming). */
  private async watchTerm(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const left = this.inTermFlag ? this.termEnd - this.clock.now() : this.opts.retryPeriod;
      if (left <= 0) this.inTerm();
      await this.clock.sleep(Math.max(left, 10), signal);
    }
  }

  private async cycle(signal: AbortSignal): Promise<void> {
    this.inTerm();
    this.startReleases();
    if (this.draining) {
      // After a term ended nothing is renewed until every reconcile of that term has finished.
      if (this.held.size > 0) return;
      this.draining = false;
    }
    const leases = await this.listLeases(signal);
    this.observer.observe(leases);
    const own = leases.find((l) => l.metadata?.name === this.leaseName);
    if (!own && this.lastOwnVersion !== undefined && this.held.size > 0) {
      // Someone deleted our Lease: the others no longer see what we hold and may take it at once.
      this.endTerm('our Lease was deleted');
      return;
    }
    void this.collectDeadLeases(signal);
    const members = new Set(this.liveMembers());
    members.add(this.identity);
    const owner = assignPartitions([...members], this.opts.partitions);

    for (const [p, h] of this.held) if (owner[p] !== this.identity) this.close(p, h);
    this.startReleases();

    // Claim only once our Lease has been seen: the others must count us as a member before we take anything.
    const claims: number[] = [];
    if (own) {
      for (let p = 0; p < this.opts.partitions; p++) {
        if (owner[p] !== this.identity || this.held.has(p) || this.observer.heldByOther(p, this.identity)) continue;
        claims.push(p);
        this.held.set(p, {
          state: 'claimed',
          inflight: 0,
          drained: undefined,
          starting: undefined,
          releasing: undefined,
        });
      }
    }
    const sent = this.clock.now();
    if (!(await this.writeOwnLease(own, signal))) {
      for (const p of claims) if (this.held.get(p)?.state === 'claimed') this.held.delete(p);
      return;
    }
    this.renewed(sent);
    if (claims.length === 0) return;

    // The claim is written; read every Lease again. A claimer that raced us either sees our claim or is seen here.
    let verify: Lease[];
    try {
      verify = await this.listLeases(signal);
    } catch (err) {
      for (const p of claims) if (this.held.get(p)?.state === 'claimed') this.held.delete(p);
      throw err;
    }
    this.observer.observe(verify);
    for (const p of claims) {
      const h = this.held.get(p);
      if (!h || h.state !== 'claimed') continue;
      if (this.observer.heldByOther(p, this.identity)) {
        this.log.info('withdrawing a claim another replica also made', { partition: p });
        this.held.delete(p);
        continue;
      }
      this.startPartition(p, h);
    }
  }

  private startPartition(p: number, h: Held): void {
    h.state = 'starting';
    const ac = (h.starting = new AbortController());
    const started = this.clock.now();
    this.opts.hooks
      .start(p, ac.signal)
      .then((synced) => {
        if (!synced || h.state !== 'starting' || this.held.get(p) !== h || !this.inTerm()) return;
        h.state = 'active';
        h.starting = undefined;
        shardPartitionHeld.labels({ ring: this.opts.ring, partition: String(p) }).set(1);
        shardHandoversTotal.labels({ ring: this.opts.ring, direction: 'acquired' }).inc();
        this.log.info('partition started', { partition: p, syncMs: Math.round(this.clock.now() - started) });
        this.opts.hooks.activated(p);
      })
      .catch((err: unknown) => {
        this.log.error(err, 'partition failed to start', { partition: p });
        this.close(p, h);
        this.kick();
      });
  }

  private startReleases(): void {
    for (const [p, h] of this.held) if (h.state === 'releasing' && !h.releasing) void this.release(p);
  }

  /** Waits for the partition's in-flight reconciles, stops its informers, and forgets it (the next write drops it). */
  private release(p: number): Promise<void> {
    const h = this.held.get(p);
    if (!h) return Promise.resolve();
    h.releasing ??= (async () => {
      if (h.inflight > 0) await new Promise<void>((resolve) => (h.drained = resolve));
      await this.opts.hooks.stop(p);
      this.held.delete(p);
      shardHandoversTotal.labels({ ring: this.opts.ring, direction: 'released' }).inc();
      this.log.info('partition released', { partition: p });
      this.kick();
    })();
    return h.releasing;
  }

  private renewed(sentAt: number): void {
    if (!this.inTermFlag) {
      this.inTermFlag = true;
      this.termEnd = 0;
    }
    this.termEnd = Math.max(this.termEnd, sentAt + this.opts.renewDeadline);
  }

  private async listLeases(signal: AbortSignal): Promise<Lease[]> {
    const list = await this.withTimeout(signal, (s) =>
      this.opts.client.list(LeaseResource, {
        namespace: this.opts.namespace,
        labelSelector: `${RING_LABEL}=${this.opts.ring}`,
        signal: s,
      }),
    );
    this.lastListVersion = list.metadata.resourceVersion ?? this.lastListVersion;
    for (const resolve of this.listWaiters.splice(0)) resolve();
    return list.items;
  }

  /** Creates or renews this replica's Lease with the partitions it announces; false if that failed. */
  private async writeOwnLease(own: Lease | undefined, signal: AbortSignal): Promise<boolean> {
    const now = microTime(this.clock.date());
    const spec = {
      holderIdentity: this.identity,
      leaseDurationSeconds: Math.max(1, Math.ceil(this.opts.leaseDuration / 1000)),
      renewTime: now,
      acquireTime: own?.spec?.acquireTime ?? now,
    };
    const metadata = {
      ...(own?.metadata ?? {}),
      name: this.leaseName,
      namespace: this.opts.namespace,
      labels: { ...(own?.metadata?.labels ?? {}), [RING_LABEL]: this.opts.ring },
      annotations: withExpired(
        { ...(own?.metadata?.annotations ?? {}), [PARTITIONS_ANNOTATION]: formatPartitions(this.held.keys()) },
        this.observer.expired(this.identity),
      ),
    };
    try {
      const written = await this.withTimeout(signal, (s) =>
        own
          ? this.opts.client.update(LeaseResource, { ...own, metadata, spec: { ...own.spec, ...spec } }, { signal: s })
          : this.opts.client.create(
              LeaseResource,
              { apiVersion: LeaseResource.apiVersion, kind: LeaseResource.kind, metadata, spec },
              { signal: s },
            ),
      );
      if (this.lastOwnVersion === undefined) this.log.info('joined the ring', { lease: this.leaseName });
      this.lastOwnVersion = written.metadata?.resourceVersion;
      // Just created: the next cycle finds it in its list and may claim at once.
      if (!own) this.kick();
      return true;
    } catch (err) {
      if (!signal.aborted) this.log.info('failed to renew the ring lease', { error: String(err) });
      return false;
    }
  }

  /**
   * Deletes Leases of replicas gone for ten lease durations (killed, never to renew), so the ring does not collect
   * one per crashed pod. The delete is conditional on the version we saw: a replica that renewed meanwhile keeps it.
   */
  private async collectDeadLeases(signal: AbortSignal): Promise<void> {
    for (const m of this.observer.members()) {
      if (m.live || m.identity === this.identity) continue;
      const unchangedFor = this.observer.unchangedFor(m.lease);
      if (unchangedFor === undefined || unchangedFor < 10 * this.opts.leaseDuration) continue;
      try {
        await this.withTimeout(signal, (s) =>
          this.opts.client.delete(
            LeaseResource,
            { namespace: this.opts.namespace, name: m.lease },
            { signal: s, preconditions: { resourceVersion: m.version } },
          ),
        );
        this.log.info('deleted the Lease of a replica long gone', { lease: m.lease, identity: m.identity });
      } catch {
        // Renewed meanwhile, or another member deleted it first.
      }
    }
  }

  private async deleteOwnLease(): Promise<void> {
    if (this.lastOwnVersion === undefined) return;
    try {
      await this.withTimeout(undefined, (s) =>
        this.opts.client.delete(LeaseResource, { namespace: this.opts.namespace, name: this.leaseName }, { signal: s }),
      );
      this.log.info('left the ring', { lease: this.leaseName });
    } catch (err) {
      if (!isNotFound(err)) this.log.error(err, 'failed to delete the ring lease');
    }
  }

  private async withTimeout<T>(signal: AbortSignal | undefined, fn: (s: AbortSignal) => Promise<T>): Promise<T> {
    const timeout = AbortSignal.timeout(this.requestTimeout);
    const s = signal ? AbortSignal.any([signal, timeout]) : timeout;
    try {
      return await fn(s);
    } catch (err) {
      if (timeout.aborted && !signal?.aborted)
        throw new TimeoutError(`ring lease request timed out after ${this.requestTimeout} ms`);
      throw err;
    }
  }
}

/** The annotations with EXPIRED_ANNOTATION set to `expired`, or without it when there is none. */
function withExpired(annotations: Record<string, string>, expired: string[]): Record<string, string> {
  const { [EXPIRED_ANNOTATION]: _before, ...rest } = annotations;
  return expired.length > 0 ? { ...rest, [EXPIRED_ANNOTATION]: expired.join(',') } : rest;
}
