// What decoding a review's object into a typed struct checks in Go: the object is a JSON object, and its TypeMeta and
// ObjectMeta fields have their types. Without it a defaulter reading `obj.metadata.labels` of `metadata: 5` would
// throw, and the review would be answered 500 "panic" instead of 400 with what is wrong.

const STRING_FIELDS = ['name', 'namespace', 'generateName', 'uid', 'resourceVersion', 'selfLink'] as const;
const MAP_FIELDS = ['labels', 'annotations'] as const;

const typeOf = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'a list' : typeof v === 'object' ? 'an object' : `a ${typeof v}`);
const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Why `raw` (the review's `field`: request.object or request.oldObject) cannot be decoded as a Kubernetes object, in
 * the words of the field at fault; undefined when it can.
 */
export function objectDecodeProblem(raw: unknown, field: string): string | undefined {
  if (!isPlainObject(raw)) return `${field} is ${typeOf(raw)}, not an object`;
  for (const key of ['apiVersion', 'kind'] as const) {
    if (raw[key] !== undefined && typeof raw[key] !== 'string') return `${field}.${key} is ${typeOf(raw[key])}, not a string`;
  }
  const meta = raw.metadata;
  if (meta === undefined || meta === null) return undefined;
  if (!isPlainObject(meta)) return `${field}.metadata is ${typeOf(meta)}, not an object`;
  for (const key of STRING_FIELDS) {
    if (meta[key] !== undefined && meta[key] !== null && typeof meta[key] !== 'string') return `${field}.metadata.${key} is ${typeOf(meta[key])}, not a string`;
  }
  if (meta.generation !== undefined && meta.generation !== null && !Number.isInteger(meta.generation)) {
    return `${field}.metadata.generation is ${typeOf(meta.generation)}, not an integer`;
  }
  for (const key of MAP_FIELDS) {
    const map = meta[key];
    if (map === undefined || map === null) continue;
    if (!isPlainObject(map)) return `${field}.metadata.${key} is ${typeOf(map)}, not a map of strings`;
    for (const [k, v] of Object.entries(map)) {
      if (typeof v !== 'string') return `${field}.metadata.${key}[${JSON.stringify(k)}] is ${typeOf(v)}, not a string`;
    }
  }
  const finalizers = meta.finalizers;
  if (finalizers !== undefined && finalizers !== null) {
    if (!Array.isArray(finalizers) || finalizers.some((f) => typeof f !== 'string')) return `${field}.metadata.finalizers is not a list of strings`;
  }
  const owners = meta.ownerReferences;
  if (owners !== undefined && owners !== null) {
    if (!Array.isArray(owners) || owners.some((o) => !isPlainObject(o))) return `${field}.metadata.ownerReferences is not a list of objects`;
  }
  return undefined;
}
