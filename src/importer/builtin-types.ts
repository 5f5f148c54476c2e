/**
 * The Kubernetes types bundled with the schema generator (src/crd/k8s_schemas): a CRD that embeds a PodTemplateSpec or
 * a LabelSelector gets `k8s.V1PodTemplateSpec` back rather than a copy of its hundreds of fields.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtinTypeNames, builtinTypeSchema } from '../crd/k8s_schemas/index.js';
import type { JSONSchemaProps } from '../markers/apiextensions.js';

interface Builtin {
  name: string;
  description: string | undefined;
}

let index: Map<string, Builtin[]> | undefined;

/**
 * The model names @kubernetes/client-node exports, read from its declarations (not loaded: it is large), or undefined
 * when it is not installed. A bundled schema whose name it does not export (core/v1's ResourceClaim is its
 * CoreV1ResourceClaim) would be a type that does not compile, so such a field is written as interfaces instead.
 */
function exportedModels(): Set<string> | undefined {
  try {
    const entry = fileURLToPath(import.meta.resolve('@kubernetes/client-node'));
    const all = readFileSync(join(dirname(entry), 'gen/models/all.d.ts'), 'utf8');
    return new Set([...all.matchAll(/from '\.\.\/models\/(\w+)\.js'/g)].map((m) => m[1]!));
  } catch {
    return undefined;
  }
}

/**
 * The bundled type whose schema is `schema` apart from its description (`canonicalOf` writes schemas as keys);
 * `description` is what the use needs: a string the type's own must equal, or undefined when the use sets its own.
 */
export function builtinTypeFor(
  schema: JSONSchemaProps,
  description: string | undefined,
  canonicalOf: (s: unknown) => string,
): string | undefined {
  if (!index) {
    index = new Map();
    const exported = exportedModels();
    for (const name of builtinTypeNames()) {
      if (exported && !exported.has(name)) continue;
      const s = builtinTypeSchema(name)!;
      if (s.type !== 'object' || !s.properties) continue;
      const { description: d, ...rest } = s;
      const key = canonicalOf(rest);
      index.set(key, [...(index.get(key) ?? []), { name, description: d }]);
    }
  }
  const { description: _own, ...rest } = schema;
  const found = index
    .get(canonicalOf(rest))
    ?.find((b) => description === undefined || (b.description ?? '') === description);
  return found ? `k8s.${found.name}` : undefined;
}
