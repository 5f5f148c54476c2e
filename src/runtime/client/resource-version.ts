// Kubernetes documents metadata.resourceVersion as an opaque string: clients may test two for equality, nothing more.
// Every API server with etcd3 storage (all of them, in practice) sets it to the etcd revision of the object's last
// write, a decimal integer that only grows across the cluster, and client-go compares it as a number where it must
// (the watch cache, informers' "newer than" checks). Read-your-writes needs the same "at least as new" test. It is
// made only on canonical decimal integers (no sign, no leading zero, as etcd writes them): anything else, from a
// storage that is not etcd3 or an aggregated API server with versions of its own, is not compared at all, and the
// caller falls back to the API server.

const DECIMAL = /^(0|[1-9][0-9]*)$/;

/** Whether `rv` is an etcd revision (a canonical decimal integer) that compareResourceVersions can order. */
export function isRevision(rv: string): boolean {
  return DECIMAL.test(rv);
}

/**
 * Orders two resourceVersions as etcd revisions: negative if `a` is older than `b`, 0 if equal, positive if newer;
 * undefined when either is not a canonical decimal integer and so cannot be ordered.
 */
export function compareResourceVersions(a: string, b: string): number | undefined {
  if (!isRevision(a) || !isRevision(b)) return undefined;
  // Revisions are uint64: compare by length, then by digits, without going through a float.
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}
