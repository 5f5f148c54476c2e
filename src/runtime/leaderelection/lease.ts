import { defineResource } from '../rest/resource.js';
import type { KubeObject, ObjectKey, Resource } from '../rest/types.js';

/** coordination.k8s.io/v1 Lease as JSON (times are MicroTime strings on the wire). */
export interface Lease extends KubeObject {
  /** The election record. */
  spec?: LeaderElectionRecord;
}

/** The lease fields leader election reads and writes (client-go's LeaderElectionRecord). */
export interface LeaderElectionRecord {
  /** The identity of the current leader. */
  holderIdentity?: string;
  /** How long the lease holds without renewal, in seconds. */
  leaseDurationSeconds?: number;
  /** When the current leader acquired the lease (MicroTime). */
  acquireTime?: string;
  /** When the current leader last renewed the lease (MicroTime). */
  renewTime?: string;
  /** How many times the lease changed hands. */
  leaseTransitions?: number;
}

/** The coordination.k8s.io/v1 Lease resource leader election locks. */
export const LeaseResource: Resource<Lease> = defineResource<Lease>({
  group: 'coordination.k8s.io',
  version: 'v1',
  kind: 'Lease',
  plural: 'leases',
  namespaced: true,
});

/** What the elector needs from a client; RestClient satisfies it (the signal bounds each request). */
export interface LeaseClient {
  /** Reads the Lease. */
  get<T extends KubeObject>(res: Resource<T>, key: ObjectKey, opts?: { signal?: AbortSignal }): Promise<T>;
  /** Creates the Lease (the first candidate). */
  create<T extends KubeObject>(res: Resource<T>, obj: T, opts?: { signal?: AbortSignal }): Promise<T>;
  /** Writes the Lease; a stale resourceVersion fails with 409 Conflict, so only one candidate wins a race. */
  update<T extends KubeObject>(res: Resource<T>, obj: T, opts?: { signal?: AbortSignal }): Promise<T>;
}

/** metav1.MicroTime: RFC 3339 with microseconds. */
export function microTime(d: Date): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}
