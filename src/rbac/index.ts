/**
 * Roles from `+kubebuilder:rbac` markers, merged and ordered as controller-gen does (pkg/rbac/parser.go):
 * one rule per resource, then rules merged by equal (groups, resource, names, urls) -> verbs, then by everything
 * but resources, then but groups, then but URLs; lists deduplicated and sorted; `*` swallows other verbs; rules
 * ordered by "<groups> + <resources> + <resourceNames> + <urls>". A namespace makes a Role instead of the ClusterRole.
 */
import type { Marker } from '../markers/collector.js';

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

interface Rule {
  groups: string[];
  resources: string[];
  resourceNames: string[];
  urls: string[];
  verbs: string[];
}

interface RbacMarkerValue {
  groups?: string[];
  resources?: string[];
  resourceNames?: string[];
  verbs: string[];
  urls?: string[];
  namespace?: string;
  roleName?: string;
}

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
  const byRole = new Map<string, { namespace: string; name: string; rules: Rule[] }>();
  for (const m of markers) {
    if (m.name !== 'kubebuilder:rbac') continue;
    const v = m.value as unknown as RbacMarkerValue;
    const namespace = v.namespace ?? '';
    const name = v.roleName || roleName;
    const key = JSON.stringify([namespace, name]);
    let role = byRole.get(key);
    if (!role) byRole.set(key, (role = { namespace, name, rules: [] }));
    const base = { groups: v.groups ?? [], resourceNames: v.resourceNames ?? [], urls: v.urls ?? [], verbs: v.verbs };
    const resources = v.resources ?? [];
    if (resources.length === 0) role.rules.push({ ...base, resources: [] });
    for (const resource of resources) role.rules.push({ ...base, resources: [resource] });
  }
  const roles = [...byRole.values()].sort((a, b) => compareStrings(a.namespace, b.namespace) || compareStrings(a.name, b.name));
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
