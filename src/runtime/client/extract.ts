// client-go's Extract<Kind> functions: the apply configuration of the fields one manager owns, read from the object's
// managedFields, so that a controller can change what it applies without first reading what others set.
import type { V1ManagedFieldsEntry } from '@kubernetes/client-node';
import { deepEqual, isObject, type JSONObject, type JSONValue } from '../json/index.js';
import type { ApplyConfiguration, KubeObject } from '../rest/types.js';
import { InvalidObjectError } from '../errors.js';

/** Options of {@link extract}. */
export interface ExtractOptions {
  /** Extract what the manager applied to this subresource ('status'); default the object itself. */
  subresource?: string;
}

/**
 * The apply configuration of the fields `fieldManager` owns in `obj` through server-side apply (client-go's
 * ExtractInto, controller-runtime's client.ExtractApplyConfiguration): its Apply entry of metadata.managedFields,
 * read back from the object, with apiVersion, kind, name and namespace. Change it and apply it again to update
 * exactly those fields; leaving a field out removes it. Empty of fields when the manager applied none.
 * @example
 * Read back what a manager applied, then apply it with one more field.
 * ```ts
 * import { extract } from '@kubescaffold/runtime/client';
 * import { FakeClient } from '@kubescaffold/runtime/fake';
 * import { ConfigMaps } from '@kubescaffold/runtime/rest';
 *
 * const client = new FakeClient({ fieldOwner: 'settings-controller' });
 * const stored = await client.apply(ConfigMaps, { metadata: { name: 'settings', namespace: 'default' }, data: { mode: 'a' } });
 * const mine = extract(stored, 'settings-controller');
 * await client.apply(ConfigMaps, { ...mine, data: { ...mine.data, size: '3' } });
 * console.log(JSON.stringify((await client.get(ConfigMaps, { namespace: 'default', name: 'settings' })).data));
 * // Output:
 * // {"mode":"a","size":"3"}
 * ```
 */
export function extract<T extends KubeObject>(
  obj: T,
  fieldManager: string,
  opts: ExtractOptions = {},
): ApplyConfiguration<T> {
  const name = obj.metadata?.name;
  if (!name) throw new InvalidObjectError('extract: the object has no metadata.name');
  const entry = (obj.metadata?.managedFields ?? []).find(
    (e: V1ManagedFieldsEntry) =>
      e.manager === fieldManager && e.operation === 'Apply' && (e.subresource ?? '') === (opts.subresource ?? ''),
  );
  const fields = isObject(entry?.fieldsV1) ? entry.fieldsV1 : {};
  // No entry, or an empty one: the manager owns nothing.
  const out = (Object.keys(fields).length > 0 ? (pick(obj as unknown as JSONValue, fields) ?? {}) : {}) as JSONObject;
  const metadata = isObject(out.metadata) ? out.metadata : {};
  const namespace = obj.metadata?.namespace;
  out.metadata = { ...metadata, name, ...(namespace ? { namespace } : {}) };
  if (obj.apiVersion) out.apiVersion = obj.apiVersion;
  if (obj.kind) out.kind = obj.kind;
  return out as unknown as ApplyConfiguration<T>;
}

// The parts of `value` in the field set `fs` (fieldsV1: f:<field>, k:<list key>, v:<set value>, i:<index>, and '.'
// for the node itself). A node with no children in the set is owned whole.
function pick(value: JSONValue | undefined, fs: JSONObject): JSONValue | undefined {
  const children = Object.keys(fs).filter((k) => k !== '.');
  if (value === undefined || children.length === 0) return value;
  if (Array.isArray(value)) {
    const out: JSONValue[] = [];
    value.forEach((item, i) => {
      const c = children.find((k) => matches(item, i, k));
      if (c === undefined) return;
      const picked = pick(item, isObject(fs[c]) ? fs[c] : {}) ?? item;
      out.push(
        c.startsWith('k:') && isObject(picked) ? { ...(JSON.parse(c.slice(2)) as JSONObject), ...picked } : picked,
      );
    });
    return out;
  }
  if (!isObject(value)) return value;
  const out: JSONObject = {};
  for (const c of children) {
    if (!c.startsWith('f:')) continue;
    const field = c.slice(2);
    const picked = pick(value[field], isObject(fs[c]) ? fs[c] : {});
    if (picked !== undefined) out[field] = picked;
  }
  return out;
}

// Whether a list item is the one a k:, v: or i: element names; a keyed item keeps its key fields.
function matches(item: JSONValue, index: number, element: string): boolean {
  const body = element.slice(2);
  if (element.startsWith('i:')) return Number(body) === index;
  if (element.startsWith('v:')) return deepEqual(JSON.parse(body), item);
  if (element.startsWith('k:') && isObject(item)) {
    const keys = JSON.parse(body) as JSONObject;
    return Object.entries(keys).every(([k, v]) => deepEqual(item[k], v));
  }
  return false;
}
