import { hostname } from 'node:os';
import { log as rootLog, type Logger } from '../log/index.js';
import { leaderElectionMasterStatus, leaderElectionSlowpathTotal } from '../metrics/leaderelection.js';
import { isConflict, isNotFound } from '../rest/errors.js';
import { realClock, type Clock } from '../clock.js';
import { LeaseResource, microTime, type Lease, type LeaseClient, type LeaderElectionRecord } from './lease.js';
import { ConfigurationError, LeaderElectionLostError, TimeoutError } from '../errors.js';
import { crypto } from '../internal/builtins.js';

const { randomUUID } = crypto;

/**
 * Options of a LeaderElector (client-go's leaderelection.LeaderElectionConfig): the Lease, its timings, and the
 * callbacks.
 */
export interface LeaderElectorOptions {
  /** A client of its own, so lease renewals never wait behind the controllers' requests. */
  client: LeaseClient;
  /** The Lease's namespace. */
  namespace: string;
  /** The Lease's name (the manager's leaderElectionID). */
  name: string;
  /** Unique per candidate. Default: hostname + '_' + a random UUID, as controller-runtime. */
  identity?: string;
  /** How long a lease holds without renewal before others may take it (ms). Default 15000. */
  leaseDuration?: number;
  /** How long the leader keeps retrying a failed renewal before giving up leadership (ms). Default 10000. */
  renewDeadline?: number;
  /** Wait between attempts (ms). Default 2000. */
  retryPeriod?: number;
  /** On stop, clear the holder so a follower takes over at once instead of after leaseDuration. Default true. */
  releaseOnCancel?: boolean;
  /**
   * Labels the Lease carries (client-go's ResourceLockConfig.Labels): set when it is created and on each write, others
   * left as they are.
   */
  labels?: Record<string, string>;
  /** Called once leadership is acquired; `signal` aborts when it is lost or the elector stops. */
  onStartedLeading: (signal: AbortSignal) => void;
  /** Called when run() ends, whether or not it ever led. */
  onStoppedLeading: () => void;
  /** Called when a different holder is observed (including ourselves). */
  onNewLeader?: (identity: string) => void;
  /** Logger; default the root logger. */
  log?: Logger;
  /** Where the elector's waits and deadlines come from; tests pass a fake clock. Default the real one. */
  clock?: Clock;
}

const JITTER_FACTOR = 1.2;

/** Leader election on a coordination.k8s.io Lease, following client-go's tools/leaderelection step by step. */
export class LeaderElector {
  /** This candidate's identity, written as the Lease's holderIdentity while it leads. */
  readonly identity: string;
  private readonly leaseDuration: number;
  private readonly renewDeadline: number;
  private readonly retryPeriod: number;
  private readonly releaseOnCancel: boolean;
  private readonly log: Logger;
  private readonly requestTimeout: number;
  private readonly clock: Clock;
  // The last record seen, when we saw it (local monotonic clock: skew between hosts does not matter), and the Lease
  // it came from (its resourceVersion makes our update fail if anyone wrote in between).
  private observedRecord: LeaderElectionRecord = {};
  private observedRaw = '';
  private observedTime = 0;
  private lease: Lease | undefined;
  private reportedLeader = '';
  // Fencing: while leading, the monotonic time until which this candidate may act as leader (renewDeadline after the
  // last successful renewal was sent), and how the term ends early. 0 when not leading.
  private termEnd = 0;
  private endTerm: ((why: string) => void) | undefined;

  constructor(private readonly opts: LeaderElectorOptions) {
    this.leaseDuration = opts.leaseDuration ?? 15_000;
    this.renewDeadline = opts.renewDeadline ?? 10_000;
    this.retryPeriod = opts.retryPeriod ?? 2_000;
    this.releaseOnCancel = opts.releaseOnCancel ?? true;
    this.clock = opts.clock ?? realClock;
    this.identity = opts.identity ?? `${hostname()}_${randomUUID()}`;
    if (this.identity === '') throw new ConfigurationError('leader election: identity must not be empty');
    if (!(this.leaseDuration > this.renewDeadline))
      throw new ConfigurationError('leaseDuration must be greater than renewDeadline');
    if (!(this.renewDeadline > JITTER_FACTOR * this.retryPeriod))
      throw new ConfigurationError('renewDeadline must be greater than retryPeriod*1.2');
    if (!(this.retryPeriod > 0)) throw new ConfigurationError('retryPeriod must be greater than zero');
    // One hung request must not cost the lease (controller-runtime: max(1s, renewDeadline/2)).
    this.requestTimeout = Math.max(1000, this.renewDeadline / 2);
    this.log = (opts.log ?? rootLog).withName('leaderelection').withValues({ lease: `${opts.namespace}/${opts.name}` });
  }

  /**
   * Whether this candidate leads now: it holds the Lease by its last observation, and its term has not run out. The
   * term is measured on the monotonic clock from the last renewal sent, so a process that was paused (SIGSTOP, a
   * frozen VM) past it learns on its first check after resuming that it may no longer lead, before it reads the Lease
   * again; the check also ends the term, stopping the controllers.
   */
  isLeader(): boolean {
    if (!this.holdsRecord()) return false;
    if (this.endTerm === undefined) return true;
    if (this.clock.now() < this.termEnd) return true;
    this.endTerm(`no renewal for ${this.renewDeadline} ms: another candidate may hold the lease`);
    return false;
  }

  /**
   * Throws LeaderElectionLostError once a term this candidate led has ended (its renewals ran out, another holder was
   * seen, or the process was paused past its term); does nothing before it leads. The manager calls it before each
   * write its clients send, so a deposed leader writes nothing more.
   */
  checkLeading(): void {
    // endTerm exists from the moment this candidate first led.
    if (this.endTerm !== undefined && !this.isLeader())
      throw new LeaderElectionLostError({
        message: 'leader election lost: this manager no longer holds its lease, so the write was not sent',
      });
  }

  /** Whether the last Lease this candidate observed names it as holder (its term may still have ended). */
  private holdsRecord(): boolean {
    return this.observedRecord.holderIdentity === this.identity;
  }

  /** The holder last observed ('' if none). */
  getLeader(): string {
    return this.observedRecord.holderIdentity ?? '';
  }

  /**
   * Campaigns until leadership is acquired, then renews until it is lost or `signal` aborts; releases the lease
   * on the way out when releaseOnCancel. Resolves when done; never rejects for API errors.
   */
  async run(signal: AbortSignal): Promise<void> {
    const gauge = leaderElectionMasterStatus.labels({ name: this.opts.name });
    try {
      if (!(await this.acquire(signal))) return;
      gauge.set(1);
      const leading = new AbortController();
      const term = new AbortController();
      let ended: string | undefined;
      this.endTerm = (why) => {
        if (ended !== undefined) return;
        ended = why;
        this.termEnd = 0;
        // Synchronously: whoever noticed (a write about to be sent, the watchdog) sees the controllers stopping.
        term.abort();
        leading.abort(new LeaderElectionLostError());
        this.log.info('leader term ended', { reason: why });
      };
      try {
        this.opts.onStartedLeading(leading.signal);
        const until = AbortSignal.any([signal, term.signal]);
        await Promise.race([this.renew(until), this.watchTerm(until)]);
      } finally {
        const fenced = ended !== undefined;
        this.endTerm('stopped leading');
        // A term that ran out may already belong to another holder: releasing would at best fail with a conflict.
        if (this.releaseOnCancel && !fenced) await this.release();
      }
    } finally {
      gauge.set(0);
      this.opts.onStoppedLeading();
    }
  }

  /** Ends the term when its end passes without a renewal extending it (the process may have been paused). */
  private async watchTerm(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const left = this.termEnd - this.clock.now();
      if (left <= 0) {
        this.isLeader();
        return;
      }
      await this.clock.sleep(left, signal);
    }
  }

  private async acquire(signal: AbortSignal): Promise<boolean> {
    this.log.info('attempting to acquire leader lease');
    while (!signal.aborted) {
      if (await this.tryAcquireOrRenew(signal)) {
        this.log.info('successfully acquired lease', { identity: this.identity });
        return true;
      }
      await this.clock.sleep(this.retryPeriod * (1 + Math.random() * JITTER_FACTOR), signal);
    }
    return false;
  }

  /** Returns when renewal has failed for renewDeadline (leadership lost) or `signal` aborted. */
  private async renew(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const deadline = this.clock.now() + this.renewDeadline;
      let renewed = false;
      for (;;) {
        if (await this.tryAcquireOrRenew(signal)) {
          renewed = true;
          break;
        }
        // Another holder seen: the Lease has moved, and the term ended with that observation.
        if (!this.holdsRecord()) return;
        if (signal.aborted || this.clock.now() + this.retryPeriod > deadline) break;
        await this.clock.sleep(this.retryPeriod, signal);
      }
      if (signal.aborted) return;
      if (!renewed) {
        this.log.info('failed to renew lease: timed out', { renewDeadlineMs: this.renewDeadline });
        return;
      }
      await this.clock.sleep(this.retryPeriod, signal);
    }
  }

  /** Gives the lease up: holder cleared, duration 1 s, so followers acquire on their next try. */
  private async release(): Promise<void> {
    if (!this.holdsRecord() || this.lease === undefined) return;
    const now = microTime(this.clock.date());
    const record: LeaderElectionRecord = {
      holderIdentity: '',
      leaseDurationSeconds: 1,
      renewTime: now,
      acquireTime: now,
      leaseTransitions: this.observedRecord.leaseTransitions ?? 0,
    };
    const releaseFrom = (lease: Lease) =>
      this.withTimeout(undefined, (s) =>
        this.opts.client.update(LeaseResource, this.labelled({ ...lease, spec: { ...lease.spec, ...record } }), {
          signal: s,
        }),
      );
    try {
      let updated: Lease;
      try {
        updated = await releaseFrom(this.lease);
      } catch (err) {
        if (!isConflict(err)) throw err;
        // A renewal given up on when the stop came may have reached the server all the same, leaving this copy a
        // version behind: read the Lease again, as client-go's release does, and release it if it is still ours.
        const current = await this.withTimeout(undefined, (s) =>
          this.opts.client.get(LeaseResource, { namespace: this.opts.namespace, name: this.opts.name }, { signal: s }),
        );
        if (current.spec?.holderIdentity !== this.identity) return;
        updated = await releaseFrom(current);
      }
      this.setObserved(updated);
      this.log.info('released leader lease');
    } catch (err) {
      this.log.error(err, 'failed to release lease');
    }
  }

  private async tryAcquireOrRenew(signal: AbortSignal): Promise<boolean> {
    const sent = this.clock.now();
    const now = this.clock.date();
    const record: LeaderElectionRecord = {
      holderIdentity: this.identity,
      leaseDurationSeconds: Math.max(1, Math.round(this.leaseDuration / 1000)),
      renewTime: microTime(now),
      acquireTime: microTime(now),
    };

    // Fast path: while we lead and our view is fresh, update straight from the cached Lease.
    if (this.holdsRecord() && this.isLeaseValid() && this.lease !== undefined) {
      record.acquireTime = this.observedRecord.acquireTime;
      record.leaseTransitions = this.observedRecord.leaseTransitions;
      try {
        const updated = await this.withTimeout(signal, (s) =>
          this.opts.client.update(
            LeaseResource,
            this.labelled({ ...this.lease!, spec: { ...this.lease!.spec, ...record } }),
            { signal: s },
          ),
        );
        this.setObserved(updated);
        this.renewed(sent);
        return true;
      } catch (err) {
        if (signal.aborted) return false;
        this.log.debug('failed to update lease optimistically, falling back to slow path', { error: String(err) });
        leaderElectionSlowpathTotal.labels({ name: this.opts.name }).inc();
      }
    }

    // 1. Get or create the Lease.
    let current: Lease;
    try {
      current = await this.withTimeout(signal, (s) =>
        this.opts.client.get(LeaseResource, { namespace: this.opts.namespace, name: this.opts.name }, { signal: s }),
      );
    } catch (err) {
      if (signal.aborted) return false;
      if (!isNotFound(err)) {
        this.log.error(err, 'error retrieving resource lock');
        return false;
      }
      try {
        const created = await this.withTimeout(signal, (s) =>
          this.opts.client.create(
            LeaseResource,
            {
              apiVersion: LeaseResource.apiVersion,
              kind: LeaseResource.kind,
              metadata: {
                namespace: this.opts.namespace,
                name: this.opts.name,
                ...(this.opts.labels ? { labels: { ...this.opts.labels } } : {}),
              },
              spec: { ...record, leaseTransitions: 0 },
            },
            { signal: s },
          ),
        );
        this.setObserved(created);
        this.renewed(sent);
        return true;
      } catch (createErr) {
        if (!signal.aborted) this.log.error(createErr, 'error initially creating leader election record');
        return false;
      }
    }

    // 2. Note when the record last changed; an unexpired lease held by another blocks us.
    const raw = JSON.stringify(current.spec ?? {});
    if (raw !== this.observedRaw) this.setObserved(current);
    else this.lease = current;
    const holder = current.spec?.holderIdentity ?? '';
    if (holder !== '' && holder !== this.identity && this.endTerm !== undefined) {
      // We led, and someone else holds it now: whatever our clock says, the term is over.
      this.endTerm(`lease taken by ${holder}`);
      return false;
    }
    if (holder !== '' && this.isLeaseValid() && !this.holdsRecord()) {
      this.log.debug('lock is held and has not yet expired', { holder });
      return false;
    }

    // 3. Take it (or keep it), counting a transition when the holder changes.
    if (this.holdsRecord()) {
      record.acquireTime = current.spec?.acquireTime;
      record.leaseTransitions = current.spec?.leaseTransitions ?? 0;
    } else {
      record.leaseTransitions = (current.spec?.leaseTransitions ?? 0) + 1;
    }
    try {
      const updated = await this.withTimeout(signal, (s) =>
        this.opts.client.update(LeaseResource, this.labelled({ ...current, spec: { ...current.spec, ...record } }), {
          signal: s,
        }),
      );
      this.setObserved(updated);
      this.renewed(sent);
      return true;
    } catch (err) {
      if (!signal.aborted) this.log.debug('failed to update lock', { error: String(err) });
      return false;
    }
  }

  // The Lease with the configured labels set over its own, as client-go's LeaseLock.Update does.
  private labelled(lease: Lease): Lease {
    if (!this.opts.labels) return lease;
    return { ...lease, metadata: { ...lease.metadata, labels: { ...lease.metadata?.labels, ...this.opts.labels } } };
  }

  /**
   * A write naming us as holder succeeded: the term runs until renewDeadline after it was sent. Others may take the
   * Lease only leaseDuration after they saw it change, which is later still; the difference is the margin for writes
   * already on their way when the term ends.
   */
  private renewed(sentAt: number): void {
    this.termEnd = Math.max(this.termEnd, sentAt + this.renewDeadline);
  }

  private setObserved(lease: Lease): void {
    this.lease = lease;
    this.observedRecord = { ...(lease.spec ?? {}) };
    this.observedRaw = JSON.stringify(lease.spec ?? {});
    this.observedTime = this.clock.now();
    const holder = this.observedRecord.holderIdentity ?? '';
    if (holder !== this.reportedLeader) {
      this.reportedLeader = holder;
      if (holder !== '') {
        this.log.info('new leader elected', { identity: holder });
        try {
          this.opts.onNewLeader?.(holder);
        } catch (err) {
          this.log.error(err, 'onNewLeader callback failed');
        }
      }
    }
  }

  private isLeaseValid(): boolean {
    const seconds = this.observedRecord.leaseDurationSeconds ?? 0;
    return this.observedTime + seconds * 1000 > this.clock.now();
  }

  /** Bounds one request by requestTimeout and by `signal`. */
  private async withTimeout<T>(signal: AbortSignal | undefined, fn: (s: AbortSignal) => Promise<T>): Promise<T> {
    const ac = new AbortController();
    const done = new AbortController();
    void this.clock.sleep(this.requestTimeout, done.signal).then((elapsed) => {
      if (elapsed) ac.abort(new TimeoutError(`lease request timed out after ${this.requestTimeout} ms`));
    });
    const onAbort = (): void => ac.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      return await fn(ac.signal);
    } finally {
      done.abort();
      signal?.removeEventListener('abort', onAbort);
    }
  }
}
