import type { Clock } from '../clock.js';
import type { Lease } from '../leaderelection/lease.js';

/** The label every Lease of a ring carries, valued with the ring's name. */
export const RING_LABEL = 'sharding.kubescaffold.dev/ring';
/** The annotation where a replica announces the partitions it has claimed or still holds: '0,3,7'. */
export const PARTITIONS_ANNOTATION = 'sharding.kubescaffold.dev/partitions';

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
 */
export class MemberObserver {
  private readonly seen = new Map<string, Observation>();
  private current: Member[] = [];

  constructor(private readonly clock: Clock) {}

  /** Takes a fresh list of the ring's Leases. */
  observe(leases: readonly Lease[]): void {
    const now = this.clock.now();
    const names = new Set<string>();
    for (const l of leases) {
      const name = l.metadata?.name ?? '';
      names.add(name);
      const version = l.metadata?.resourceVersion ?? JSON.stringify(l.spec ?? {});
      const prev = this.seen.get(name);
      if (!prev || prev.version !== version) this.seen.set(name, { version, seenAt: now });
    }
    for (const name of [...this.seen.keys()]) if (!names.has(name)) this.seen.delete(name);
    this.current = leases.map((l) => {
      const name = l.metadata?.name ?? '';
      const identity = l.spec?.holderIdentity ?? '';
      const duration = (l.spec?.leaseDurationSeconds ?? 0) * 1000;
      return {
        lease: name,
        version: l.metadata?.resourceVersion ?? '',
        identity,
        partitions: parsePartitions(l.metadata?.annotations?.[PARTITIONS_ANNOTATION]),
        live: identity !== '' && this.seen.get(name)!.seenAt + duration > now,
      };
    });
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
