import { applyFieldSpec, type FieldSpec } from '../fieldspec.js';
import { gvkSelected, type Gvk } from '../resid.js';
import type { Resource } from '../resource.js';
import { scalarText } from '../values.js';

// kustomize never renames these: their names are fixed by the API (CRDs, APIServices) or are namespaces.
const NEVER_RENAMED: Array<Partial<Gvk>> = [
  { kind: 'CustomResourceDefinition' },
  { group: 'apiregistration.k8s.io', kind: 'APIService' },
  { kind: 'Namespace' },
];

/** namePrefix / nameSuffix: rewrites names and remembers the old ones so references can follow. */
export function addNameAffix(
  resources: Resource[],
  affix: string,
  specs: FieldSpec[],
  where: 'prefix' | 'suffix',
): void {
  for (const r of resources) {
    const org = r.orgId();
    if (NEVER_RENAMED.some((s) => gvkSelected(org.gvk, s))) continue;
    for (const fs of specs) {
      if (!gvkSelected(org.gvk, fs.gvk)) continue;
      if (fs.path === 'metadata/name' && affix !== '') {
        (where === 'prefix' ? r.prefixes : r.suffixes).push(affix);
        r.storePreviousId();
      }
      applyFieldSpec(
        r.obj,
        fs,
        (ref) => ref.set(where === 'prefix' ? affix + scalarText(ref.get()) : scalarText(ref.get()) + affix),
        'scalar',
      );
    }
  }
}
