import type { Clock } from '../clock.js';
import type { Lease } from '../leaderelection/lease.js';

/** The label every Lease of a ring carries, valued with the ring's name. */
export const RING_LABEL = 'sharding.kubescaffold.dev/ring';
/** The annotation where a replica announces the partitions it has claimed or still holds: '0,3,7'. */
export const PARTITIONS_ANNOTATION = 'sharding.kubescaffold.dev/partitions';
/**
 * The annotation where a replica names the Leases it has found expired, each at the version it saw unchanged for the
 * Lease's duration: 'crew-1a2b…@4711,crew-9f8e…@4802'. Others take the verdict while that version stands.
 */
export const EXPIRED_ANNOTATION = 'sharding.kubescaffold.dev/expired';

/** A replica of the ring as the last list showed it. */
export interface Member {
  /** The Lease's name. */
  readonly lease: string;
  /** Its holderIdentity. */
  readonly identity: string;
  /** The partitions it announces (claimed, held, or being released). */
  readonly partitions: ReadonlySet<number>;
  /** The Lease's resourceVersion. */
  readonly version: string;
  /** Whether its Lease was renewed within its duration, as observed on this replica's monotonic clock. */
  readonly live: boolean;
}

interface Observation {
  version: string;
  seenAt: number;
}

/**
 * Tracks the ring's Leases across lists: a Lease is live until it stays unchanged for its leaseDurationSeconds,
 * counted from when this replica first saw that version (the leader elector's rule: clocks of other hosts never
 * matter, and a Lease first seen now is live for a full duration).
 *
 * A replica that has just joined would by that rule count a Lease whose holder died long ago as live for a full
 * duration more, while the older members already know it is gone: they would hand it partitions it cannot claim. So
 * members share their verdicts (EXPIRED_ANNOTATION): a Lease that some member saw unchanged at version V for its
 * duration is expired for everyone while it stays at V. That is as safe as the member's own rule: its holder's term
 * ended renewDeadline after it sent V, before any member could see V for leaseDuration; renewing again changes the
 * version, and the verdict no longer applies.
 */
export class MemberObserver {
  private readonly seen = new Map<string, Observation>();
  private current: Member[] = [];
  private durations = new Map<string, number>();
  private verdicts = new Set<string>();

  constructor(private readonly clock: Clock) {}

  /** Takes a fresh list of the ring's Leases. */
  observe(leases: readonly Lease[]): void {
    const names = new Set<string>();
    for (const l of leases) {
      names.add(l.metadata?.name ?? '');
      this.note(l);
    }
    for (const name of [...this.seen.keys()]) if (!names.has(name)) this.seen.delete(name);
    this.durations = new Map(leases.map((l) => [l.metadata?.name ?? '', (l.spec?.leaseDurationSeconds ?? 0) * 1000]));
    this.verdicts = new Set(leases.flatMap((l) => parseExpired(l.metadata?.annotations?.[EXPIRED_ANNOTATION])));
    const now = this.clock.now();
    this.current = leases.map((l) => {
      const name = l.metadata?.name ?? '';
      const identity = l.spec?.holderIdentity ?? '';
      const version = versionOf(l);
      return {
        lease: name,
        version: l.metadata?.resourceVersion ?? '',
        identity,
        partitions: parsePartitions(l.metadata?.annotations?.[PARTITIONS_ANNOTATION]),
        live:
          identity !== '' &&
          this.seen.get(name)!.seenAt + this.durations.get(name)! > now &&
          !this.verdicts.has(`${name}@${version}`),
      };
    });
  }

  /**
   * Takes one Lease as a watch delivered it: a version seen now starts its duration now, which is sooner than the next
   * list would (so a holder that stops renewing is found expired a list's interval earlier). Never later than a list.
   */
  note(l: Lease): void {
    const name = l.metadata?.name ?? '';
    const version = versionOf(l);
    const prev = this.seen.get(name);
    if (!prev || prev.version !== version) this.seen.set(name, { version, seenAt: this.clock.now() });
  }

  /** The members of the last list, live or not. */
  members(): readonly Member[] {
    return this.current;
  }

  /** How long (ms) the Lease `name` has been seen unchanged, or undefined if the last list did not have it. */
  unchangedFor(name: string): number | undefined {
    const o = this.seen.get(name);
    return o ? this.clock.now() - o.seenAt : undefined;
  }

  /** Whether a live member other than `self` announces partition `p`. */
  heldByOther(p: number, self: string): boolean {
    return this.current.some((m) => m.live && m.identity !== self && m.partitions.has(p));
  }

  /** The verdicts to share: 'lease@version' of every member of the last list, other than `self`, found expired. */
  expired(self: string): string[] {
    return this.current
      .filter((m) => !m.live && m.identity !== self && m.identity !== '' && m.version !== '')
      .map((m) => `${m.lease}@${m.version}`)
      .sort();
  }

  /**
   * When (on the local clock) the next member of the last list other than `self` expires if it does not renew, or
   * undefined if none is live: the ring looks again then rather than up to a retryPeriod later.
   */
  nextExpiry(self: string): number | undefined {
    let next: number | undefined;
    for (const m of this.current) {
      if (!m.live || m.identity === self) continue;
      const at = this.seen.get(m.lease)!.seenAt + this.durations.get(m.lease)!;
      next = next === undefined ? at : Math.min(next, at);
    }
    return next;
  }
}

/** What tells one version of a Lease from the next. */
function versionOf(l: Lease): string {
  return l.metadata?.resourceVersion ?? JSON.stringify(l.spec ?? {});
}

/** 'a@1,b@2' → ['a@1', 'b@2']; entries without both parts are ignored. */
export function parseExpired(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((v) => v.trim())
    .filter((v) => /^[^@]+@[^@]+$/.test(v));
}

/** '0,3,7' → {0,3,7}; anything unparsable is ignored (a malformed announcement blocks nothing it cannot name). */
export function parsePartitions(value: string | undefined): Set<number> {
  const out = new Set<number>();
  for (const part of (value ?? '').split(',')) {
    const n = Number(part.trim());
    if (part.trim() !== '' && Number.isInteger(n) && n >= 0) out.add(n);
  }
  return out;
}

/** {7,0,3} → '0,3,7'. */
export function formatPartitions(ps: Iterable<number>): string {
  return [...ps].sort((a, b) => a - b).join(',');
}
