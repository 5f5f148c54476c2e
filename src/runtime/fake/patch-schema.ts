// The strategic-merge schema of a built-in kind, from the table generated from k8s.io/api's struct tags.
import type { FieldPatchMeta, PatchSchema } from './strategic-merge.js';
import { OBJECT_META, PATCH_KINDS, PATCH_TYPES } from './patch-strategies.js';

/** The core group, apps, batch, and *.k8s.io groups are Kubernetes' own; a custom resource's group has a domain. */
export function isBuiltinGroup(group: string): boolean {
  return !group.includes('.') || group.endsWith('.k8s.io');
}

// A field the table does not list: no strategy, and nothing below it has one.
const PLAIN: FieldPatchMeta = { strategies: [''], mergeKey: '', schema: { field: () => PLAIN } };

function typeSchema(type: string): PatchSchema {
  const fields = PATCH_TYPES[type] ?? {};
  return {
    field(key) {
      const f = fields[key];
      if (!f) return PLAIN;
      const [strategy, mergeKey, child] = f;
      return { strategies: strategy.split(','), mergeKey, schema: child ? typeSchema(child) : PLAIN.schema };
    },
  };
}

/**
 * The schema a strategic merge patch of a built-in kind follows, by apiVersion ('apps/v1') and kind. A kind the
 * table does not list has no strategy but its metadata's (finalizers, ownerReferences), as every kind has.
 */
export function builtinPatchSchema(apiVersion: string, kind: string): PatchSchema {
  const type = PATCH_KINDS[`${apiVersion}/${kind}`];
  if (type) return typeSchema(type);
  const meta = typeSchema(OBJECT_META);
  return { field: (key) => (key === 'metadata' ? { ...PLAIN, schema: meta } : PLAIN) };
}
