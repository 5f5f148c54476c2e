import type { NameBackReference } from '../config.js';
import { KustomizeError } from '../errors.js';
import { applyFieldSpec, fieldRef, type FieldRef, type FieldSpec } from '../fieldspec.js';
import { effectiveNamespace, gvkSelected, NOT_A_NAMESPACE, nsEquals, type Gvk } from '../resid.js';
import type { Resource } from '../resource.js';
import { isObject, type JSONObject } from '../values.js';

// After every rename (prefix, suffix, hash), fix the fields that refer to renamed objects by their old names:
// role bindings' roleRef and subjects, service account names, webhook services, ConfigMap/Secret volumes, ...
// A port of kustomize's nameref filter, candidate by candidate.

function sameEndingSubSlice(a: string[], b: string[]): boolean {
  const [shortest, longest] = a.length > b.length ? [b, a] : [a, b];
  const diff = longest.length - shortest.length;
  if (shortest.length === 0) return diff === 0;
  for (let i = shortest.length - 1; i >= 0; i--) if (longest[i + diff] !== shortest[i]) return false;
  return true;
}

function affixesEqual(a: Resource, b: Resource, allowEmpty: boolean): boolean {
  if (allowEmpty) {
    const prefixOk = a.prefixes.length === 0 || b.prefixes.length === 0 || sameEndingSubSlice(a.prefixes, b.prefixes);
    const suffixOk = a.suffixes.length === 0 || b.suffixes.length === 0 || sameEndingSubSlice(a.suffixes, b.suffixes);
    return prefixOk && suffixOk;
  }
  return sameEndingSubSlice(a.prefixes, b.prefixes) && sameEndingSubSlice(a.suffixes, b.suffixes);
}

/** The resources a referrer could name: cluster-scoped ones, those in its namespace, and for RoleBindings its subjects' namespaces. */
function possibleReferrals(all: Resource[], referrer: Resource): Resource[] {
  const rid = referrer.curId();
  if (rid.clusterScoped) return all;
  const subjectNamespaces = new Set<string>();
  if (referrer.kind === 'RoleBinding' && Array.isArray(referrer.obj.subjects)) {
    for (const s of referrer.obj.subjects) {
      if (isObject(s) && s.kind === 'ServiceAccount' && typeof s.namespace === 'string')
        subjectNamespaces.add(s.namespace);
    }
  }
  return all.filter((t) => {
    const id = t.curId();
    return id.clusterScoped || nsEquals(id, rid) || subjectNamespaces.has(t.namespace);
  });
}

class ReferenceFixer {
  constructor(
    private readonly referrer: Resource,
    private readonly spec: FieldSpec,
    private readonly target: Partial<Gvk>,
    private readonly candidates: Resource[],
  ) {}

  run(): void {
    const spec: FieldSpec = { ...this.spec, gvk: this.referrer.gvk() };
    try {
      applyFieldSpec(this.referrer.obj, spec, (ref) => this.set(ref), undefined);
    } catch (e) {
      throw new KustomizeError(
        `updating name reference in '${this.spec.path}' field of ${this.referrer.describe()}: ${(e as Error).message}`,
      );
    }
  }

  private set(ref: FieldRef): void {
    const v = ref.get();
    if (v === null || v === undefined) return;
    if (Array.isArray(v)) {
      v.forEach((el, i) => {
        if (el === null) return;
        if (isObject(el)) this.setMapping(el);
        else if (Array.isArray(el)) throw new KustomizeError('expected a name or a mapping with a name in the list');
        else this.setScalar(fieldRef(v, i));
      });
    } else if (isObject(v)) {
      this.setMapping(v);
    } else {
      this.setScalar(ref);
    }
  }

  private setScalar(ref: FieldRef): void {
    const old = String(ref.get());
    const referral = this.select(old, this.candidates, (rs) => rs.every((r) => r.name === rs[0]!.name));
    if (referral && referral.name !== old) ref.set(referral.name);
  }

  private setMapping(node: JSONObject): void {
    if (!('name' in node)) throw new KustomizeError("path config error; no 'name' field in node");
    const old = typeof node.name === 'string' ? node.name : String(node.name);
    const referral = this.select(old, this.byNamespace(node), (rs) =>
      rs.every((r) => r.name === rs[0]!.name && r.namespace === rs[0]!.namespace),
    );
    if (!referral) return;
    if (referral.name === old && referral.namespace === '') return;
    node.name = referral.name;
    // An empty namespace is a wildcard here, never written over the reference's own.
    if (referral.namespace !== '') node.namespace = referral.namespace;
  }

  private byNamespace(node: JSONObject): Resource[] {
    if (!('namespace' in node) || node.namespace === null) return this.candidates;
    const ns = String(node.namespace);
    const byOriginal = this.candidates.filter((r) => {
      const e = effectiveNamespace(r.orgId());
      return e !== NOT_A_NAMESPACE && e === ns;
    });
    if (byOriginal.length > 0) return byOriginal;
    return this.candidates.filter((r) => {
      const e = effectiveNamespace(r.curId());
      return e !== NOT_A_NAMESPACE && e === ns;
    });
  }

  private roleRefGvk(): Partial<Gvk> | undefined {
    if (!this.spec.path.endsWith('roleRef/name')) return undefined;
    const roleRef = this.referrer.obj.roleRef;
    if (!isObject(roleRef) || typeof roleRef.apiGroup !== 'string' || typeof roleRef.kind !== 'string')
      return undefined;
    return { group: roleRef.apiGroup, kind: roleRef.kind };
  }

  private select(
    oldName: string,
    candidatesIn: Resource[],
    identical: (rs: Resource[]) => boolean,
  ): Resource | undefined {
    const roleRef = this.roleRefGvk();
    const rid = this.referrer.curId();
    let c = candidatesIn.filter((r) => r.prevIds().some((id) => id.name === oldName));
    c = c.filter((r) => r.prevIds().some((id) => gvkSelected(id.gvk, this.target)));
    if (roleRef) c = c.filter((r) => r.prevIds().some((id) => gvkSelected(id.gvk, roleRef)));
    if (!rid.clusterScoped)
      c = c.filter((r) => r.curId().clusterScoped || r.kind === 'ServiceAccount' || nsEquals(rid, r.curId()));
    if (c.length === 1) return c[0];
    c = c.filter((r) => affixesEqual(r, this.referrer, true));
    if (c.length > 1) c = c.filter((r) => affixesEqual(r, this.referrer, false));
    if (c.length === 1) return c[0];
    if (c.length === 0) return undefined;
    if (identical(c)) return c[0];
    throw new KustomizeError(
      `found multiple possible referrals for "${oldName}": ${c.map((r) => r.describe()).join(', ')}`,
    );
  }
}

/**
 * Updates the fields that refer to a resource by name (nameReference) after prefixes, suffixes and hashes renamed it.
 */
export function fixNameReferences(resources: Resource[], backRefs: NameBackReference[]): void {
  const fixers = new Map<Resource, Array<{ spec: FieldSpec; target: Partial<Gvk> }>>();
  for (const br of backRefs) {
    for (const spec of br.referrers) {
      for (const r of resources) {
        if (!gvkSelected(r.orgId().gvk, spec.gvk)) continue;
        if (!fixers.has(r)) fixers.set(r, []);
        fixers.get(r)!.push({ spec, target: br.gvk });
      }
    }
  }
  for (const [referrer, list] of fixers) {
    const candidates = possibleReferrals(resources, referrer);
    for (const f of list) new ReferenceFixer(referrer, f.spec, f.target, candidates).run();
  }
}
