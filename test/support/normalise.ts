/**
 * What the equivalence tests of the ports in examples/ compare: the objects the Go original and the port wrote, once
 * what differs by nature between their runs is replaced in every string, at any depth: the run's own names (its
 * namespace, its objects' name prefix), uids, and (optionally) timestamps.
 */

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** How a run's strings are made comparable. */
export interface Normalisation {
  /** Each key, wherever it occurs in a string, becomes its value (e.g. the run's namespace → '<ns>'). */
  replace: Record<string, string>;
  /** A string that is a whole RFC 3339 timestamp becomes '<time>'. */
  times?: boolean;
}

/**
 * `value` with every string normalised, object keys too (managedFields key list items by uid): the replacements made,
 * uids as '<uid>', timestamps as '<time>' if asked.
 */
export function normaliseStrings(value: unknown, how: Normalisation): unknown {
  if (typeof value === 'string') {
    if (how.times && TIME.test(value)) return '<time>';
    let s = value;
    for (const [from, to] of Object.entries(how.replace)) s = s.split(from).join(to);
    return s.replace(UUID, '<uid>');
  }
  if (Array.isArray(value)) return value.map((v) => normaliseStrings(v, how));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[normaliseStrings(k, how) as string] = normaliseStrings(v, how);
    return out;
  }
  return value;
}
