import { KustomizeError } from '../errors.js';
import { applyFieldSpec, type FieldSpec } from '../fieldspec.js';
import type { Resource } from '../resource.js';
import { isObject } from '../values.js';

/** Adds key/value entries (labels or annotations) at every field the specs reach, creating maps where allowed. */
export function addMapEntries(resources: Resource[], entries: Record<string, string>, specs: FieldSpec[]): void {
  const keys = Object.keys(entries).sort();
  if (keys.length === 0) return;
  for (const r of resources) {
    for (const key of keys) {
      for (const fs of specs) {
        applyFieldSpec(
          r.obj,
          fs,
          (ref) => {
            const m = ref.get();
            if (!isObject(m))
              throw new KustomizeError(`${r.describe()}: ${fs.path} must be a mapping to add "${key}" to it`);
            m[key] = entries[key]!;
          },
          'map',
        );
      }
    }
  }
}
