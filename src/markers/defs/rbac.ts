/**
 * The RBAC marker (controller-gen's pkg/rbac/parser.go): `+kubebuilder:rbac` grants a Role, or the ClusterRole, one
 * rule per resource; src/rbac merges and orders the rules.
 */
import { string } from '../grammar.js';
import { opt, PKG, strings, struct, type MarkerDefinition, type MarkerGroup } from './define.js';
import type { RbacEffect } from './effect.js';

interface RbacMarkerValue {
  groups?: string[];
  resources?: string[];
  resourceNames?: string[];
  verbs: string[];
  urls?: string[];
  namespace?: string;
  roleName?: string;
}

/** `+kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch`. */
export const rbac: MarkerDefinition<RbacEffect> = {
  name: 'kubebuilder:rbac',
  targets: PKG,
  shape: struct({
    groups: opt(strings),
    resources: opt(strings),
    resourceNames: opt(strings),
    verbs: strings,
    urls: opt(strings),
    namespace: opt(string),
    roleName: opt(string),
  }),
  help: 'an RBAC rule, e.g. +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch',
  effect: {
    on: 'rbac',
    apply(grants, value) {
      const v = value as unknown as RbacMarkerValue;
      const namespace = v.namespace ?? '';
      const name = v.roleName || grants.defaultName;
      const key = JSON.stringify([namespace, name]);
      let role = grants.roles.get(key);
      if (!role) grants.roles.set(key, (role = { namespace, name, rules: [] }));
      const base = { groups: v.groups ?? [], resourceNames: v.resourceNames ?? [], urls: v.urls ?? [], verbs: v.verbs };
      const resources = v.resources ?? [];
      if (resources.length === 0) role.rules.push({ ...base, resources: [] });
      for (const resource of resources) role.rules.push({ ...base, resources: [resource] });
    },
  },
};

/** The RBAC markers, as the marker reference lists them. */
export const rbacMarkers: MarkerGroup = { title: 'RBAC', definitions: [rbac] };
