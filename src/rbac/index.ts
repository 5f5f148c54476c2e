/**
 * Roles from the RBAC markers, merged and ordered as controller-gen does (pkg/rbac/parser.go): each marker's
 * effect (src/markers/defs/rbac.ts) grants one rule per resource, then rules are merged by equal (groups, resource, names, urls) -> verbs, then by everything
 * but resources, then but groups, then but URLs; lists deduplicated and sorted; `*` swallows other verbs; rules
 * ordered by "<groups> + <resources> + <resourceNames> + <urls>". A namespace makes a Role instead of the ClusterRole.
 */
import type { Marker } from '../markers/collector.js';
import type { RbacRule, RoleGrants } from '../markers/defs/effect.js';
import { definitionNamed } from '../markers/registry.js';

/** A rule of a generated Role or ClusterRole, with empty lists left out as controller-gen writes them. */
export interface PolicyRule {
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
  verbs: string[];
}

/** A generated rbac.authorization.k8s.io/v1 ClusterRole, or a Role when the markers give a namespace. */
export interface RoleObject {
  apiVersion: 'rbac.authorization.k8s.io/v1';
  kind: 'ClusterRole' | 'Role';
  metadata: { name: string; namespace?: string };
  rules: PolicyRule[];
}

type Rule = RbacRule;

const uniqSorted = (xs: readonly string[]): string[] => [...new Set(xs)].sort(compareStrings);
const compareStrings = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const normalize = (r: Rule): Rule => ({
  groups: uniqSorted(r.groups),
  resources: uniqSorted(r.resources),
  resourceNames: uniqSorted(r.resourceNames),
  urls: uniqSorted(r.urls),
  verbs: uniqSorted(r.verbs),
});
const j = (xs: string[]): string => xs.join('&');
const ruleKey = (r: Rule): string => `${j(r.groups)} + ${j(r.resources)} + ${j(r.resourceNames)} + ${j(r.urls)}`;

/** Merges rules whose key (without one list) is equal, concatenating that list. */
function mergeBy(rules: Rule[], key: (r: Rule) => string, list: 'resources' | 'groups' | 'urls'): Rule[] {
  const groups = new Map<string, Rule>();
  for (const r of rules) {
    const k = key(r);
    const into = groups.get(k);
    if (into) into[list] = [...into[list], ...r[list]];
    else groups.set(k, { ...r, [list]: [...r[list]] });
  }
  const byKey = new Map<string, Rule>();
  for (const r of groups.values()) {
    const n = normalize(r);
    byKey.set(ruleKey(n), n);
  }
  return [...byKey.values()];
}

/** Merges and orders one role's rules by controller-gen's rules (see above); `core` becomes the core group "". */
export function normalizeRules(input: readonly Rule[]): PolicyRule[] {
  const byKey = new Map<string, Rule>();
  for (const raw of input) {
    const r = normalize({ ...raw, groups: raw.groups.map((g) => (g === 'core' ? '' : g)) });
    const k = ruleKey(r);
    const existing = byKey.get(k);
    if (existing) existing.verbs = uniqSorted([...existing.verbs, ...r.verbs]);
    else byKey.set(k, r);
  }
  let rules = [...byKey.values()];
  rules = mergeBy(rules, (r) => `${j(r.groups)} + ${j(r.resourceNames)} + ${j(r.urls)} + ${j(r.verbs)}`, 'resources');
  rules = mergeBy(rules, (r) => `${j(r.resources)} + ${j(r.resourceNames)} + ${j(r.urls)} + ${j(r.verbs)}`, 'groups');
  rules = mergeBy(rules, (r) => `${j(r.groups)} + ${j(r.resources)} + ${j(r.resourceNames)} + ${j(r.verbs)}`, 'urls');
  rules.sort((a, b) => compareStrings(ruleKey(a), ruleKey(b)));
  return rules.map((r) => {
    const out: PolicyRule = { verbs: r.verbs.includes('*') ? ['*'] : r.verbs };
    if (r.groups.length > 0) out.apiGroups = r.groups;
    if (r.resources.length > 0) out.resources = r.resources;
    if (r.resourceNames.length > 0) out.resourceNames = r.resourceNames;
    if (r.urls.length > 0) out.nonResourceURLs = r.urls;
    return out;
  });
}

/** The ClusterRole (namespace "") and Roles for the markers, ordered by namespace then role name. */
export function generateRoles(markers: readonly Marker[], roleName: string): RoleObject[] {
  const grants: RoleGrants = { defaultName: roleName, roles: new Map() };
  for (const m of markers) {
    const effect = definitionNamed(m.name)?.effect;
    if (effect?.on === 'rbac') effect.apply(grants, m.value);
  }
  const roles = [...grants.roles.values()].sort(
    (a, b) => compareStrings(a.namespace, b.namespace) || compareStrings(a.name, b.name),
  );
  const out: RoleObject[] = [];
  for (const role of roles) {
    const rules = normalizeRules(role.rules);
    if (rules.length === 0) continue;
    out.push({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: role.namespace ? 'Role' : 'ClusterRole',
      metadata: role.namespace ? { name: role.name, namespace: role.namespace } : { name: role.name },
      rules,
    });
  }
  return out;
}
