/** A one-file API project in a temporary folder, run through `scaffold manifests`' planner, for schema tests. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { planManifests } from '../../src/generate/manifests.js';

/** An OpenAPI schema as the tests read it back from the YAML. */
export type Schema = { properties?: Record<string, Schema>; required?: string[]; description?: string } & Record<
  string,
  unknown
>;

/** What planning wrote: each CRD's first version's schema by file name, and every file's text by path. */
export interface Planned {
  crds: Record<string, Schema>;
  texts: Record<string, string>;
}

/**
 * Writes `types` as api/v1/thing_types.ts (group go.example.com) under `root` and plans the manifests; throws the
 * planner's error.
 */
export function planTypes(root: string, types: string): Planned {
  const api = join(root, 'api/v1');
  mkdirSync(api, { recursive: true });
  writeFileSync(join(api, 'groupversion_info.ts'), '// +groupName=go.example.com\nexport {};\n');
  writeFileSync(join(api, 'thing_types.ts'), types);
  const result = planManifests({ root, generatorVersion: '(devel)' });
  const crds: Record<string, Schema> = {};
  const texts: Record<string, string> = {};
  for (const f of result.files) {
    texts[f.path.slice(root.length + 1)] = f.content;
    if (!f.path.includes('/crd/')) continue;
    const crd = parse(f.content) as { spec: { versions: { schema: { openAPIV3Schema: Schema } }[] } };
    crds[f.path.replace(/.*\//, '')] = crd.spec.versions[0]!.schema.openAPIV3Schema;
  }
  return { crds, texts };
}

/** The planner's error message for `types`; fails when planning succeeds. */
export function planError(root: string, types: string): string {
  try {
    planTypes(root, types);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('manifests succeeded');
}
