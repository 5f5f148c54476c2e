// Resource identity as kustomize's resid package models it: group/version/kind, name and namespace.

/** A group, version and kind; the core group is ''. */
export interface Gvk {
  group: string;
  version: string;
  kind: string;
}

/** A resource's identity: its gvk, name and namespace. */
export interface ResId {
  gvk: Gvk;
  name: string;
  namespace: string;
  /** Known (from kustomize's built-in OpenAPI data) to be cluster-scoped. */
  clusterScoped: boolean;
}

// kustomize decides scope from its compiled-in Kubernetes 1.21 OpenAPI data: only these are certainly
// cluster-scoped; every other kind, including custom resources, is treated as namespaced.
const CLUSTER_SCOPED = new Set([
  'admissionregistration.k8s.io/v1 MutatingWebhookConfiguration',
  'admissionregistration.k8s.io/v1 ValidatingWebhookConfiguration',
  'admissionregistration.k8s.io/v1beta1 MutatingWebhookConfiguration',
  'admissionregistration.k8s.io/v1beta1 ValidatingWebhookConfiguration',
  'apiextensions.k8s.io/v1 CustomResourceDefinition',
  'apiextensions.k8s.io/v1beta1 CustomResourceDefinition',
  'apiregistration.k8s.io/v1 APIService',
  'apiregistration.k8s.io/v1beta1 APIService',
  'certificates.k8s.io/v1 CertificateSigningRequest',
  'certificates.k8s.io/v1beta1 CertificateSigningRequest',
  'flowcontrol.apiserver.k8s.io/v1beta1 FlowSchema',
  'flowcontrol.apiserver.k8s.io/v1beta1 PriorityLevelConfiguration',
  'networking.k8s.io/v1 IngressClass',
  'networking.k8s.io/v1beta1 IngressClass',
  'node.k8s.io/v1 RuntimeClass',
  'node.k8s.io/v1beta1 RuntimeClass',
  'policy/v1beta1 PodSecurityPolicy',
  'rbac.authorization.k8s.io/v1 ClusterRole',
  'rbac.authorization.k8s.io/v1 ClusterRoleBinding',
  'rbac.authorization.k8s.io/v1beta1 ClusterRole',
  'rbac.authorization.k8s.io/v1beta1 ClusterRoleBinding',
  'scheduling.k8s.io/v1 PriorityClass',
  'scheduling.k8s.io/v1beta1 PriorityClass',
  'storage.k8s.io/v1 CSIDriver',
  'storage.k8s.io/v1 CSINode',
  'storage.k8s.io/v1 StorageClass',
  'storage.k8s.io/v1 VolumeAttachment',
  'storage.k8s.io/v1beta1 CSIDriver',
  'storage.k8s.io/v1beta1 CSINode',
  'storage.k8s.io/v1beta1 StorageClass',
  'storage.k8s.io/v1beta1 VolumeAttachment',
  'v1 ComponentStatus',
  'v1 Namespace',
  'v1 Node',
  'v1 NodeProxyOptions',
  'v1 PersistentVolume',
]);

/** The namespace kustomize assumes for a namespaced resource that names none. */
export const DEFAULT_NAMESPACE = 'default';
/** The namespace kustomize gives cluster-scoped resources, so that they never equal a namespaced one. */
export const NOT_A_NAMESPACE = '_non_namespaceable_';

/** Splits an apiVersion into group and version; `v1` is the core group ''. */
export function parseApiVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.indexOf('/');
  return i >= 0
    ? { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) }
    : { group: '', version: apiVersion };
}

/** The apiVersion of a gvk: `group/version`, or the version alone for the core group. */
export function apiVersionOf(gvk: Gvk): string {
  return gvk.group ? `${gvk.group}/${gvk.version}` : gvk.version;
}

/** Whether kustomize knows the kind as cluster-scoped (see CLUSTER_SCOPED). */
export function isClusterScoped(gvk: Gvk): boolean {
  return CLUSTER_SCOPED.has(`${apiVersionOf(gvk)} ${gvk.kind}`);
}

/** Whether two gvks are the same. */
export function gvkEquals(a: Gvk, b: Gvk): boolean {
  return a.group === b.group && a.version === b.version && a.kind === b.kind;
}

/** True when every non-empty field of the selector equals the gvk's (kustomize's Gvk.IsSelected). */
export function gvkSelected(gvk: Gvk, selector: Partial<Gvk> | undefined): boolean {
  if (!selector) return true;
  if (selector.group && gvk.group !== selector.group) return false;
  if (selector.version && gvk.version !== selector.version) return false;
  if (selector.kind && gvk.kind !== selector.kind) return false;
  return true;
}

/** The namespace kustomize compares ids by: '' counts as default, and cluster-scoped resources have none. */
export function effectiveNamespace(id: ResId): string {
  if (id.clusterScoped) return NOT_A_NAMESPACE;
  if (id.namespace === '' || id.namespace === DEFAULT_NAMESPACE) return DEFAULT_NAMESPACE;
  return id.namespace;
}

/** Whether two ids are in the same namespace, as effectiveNamespace sees it. */
export function nsEquals(a: ResId, b: ResId): boolean {
  return effectiveNamespace(a) === effectiveNamespace(b);
}

/** Whether two ids name the same resource (kustomize's ResId.Equals). */
export function idEquals(a: ResId, b: ResId): boolean {
  return nsEquals(a, b) && a.name === b.name && gvkEquals(a.gvk, b.gvk);
}

/** kustomize's ResId.IsSelectedBy: empty selector fields match anything. */
export function idSelectedBy(id: ResId, selector: { gvk: Partial<Gvk>; name?: string; namespace?: string }): boolean {
  if (selector.name && selector.name !== id.name) return false;
  if (selector.namespace) {
    // A selector read from YAML is never marked cluster-scoped (kustomize builds it without consulting the schema).
    const sel: ResId = {
      gvk: { group: '', version: '', kind: '', ...selector.gvk },
      name: '',
      namespace: selector.namespace,
      clusterScoped: false,
    };
    if (!nsEquals(sel, id)) return false;
  }
  return gvkSelected(id.gvk, selector.gvk);
}

/** The GVK ordering kustomize uses for config field specs (Gvk.IsLessThan). */
const TYPE_ORDER_FIRST = [
  'Namespace',
  'ResourceQuota',
  'StorageClass',
  'CustomResourceDefinition',
  'ServiceAccount',
  'PodSecurityPolicy',
  'Role',
  'ClusterRole',
  'RoleBinding',
  'ClusterRoleBinding',
  'ConfigMap',
  'Secret',
  'Endpoints',
  'Service',
  'LimitRange',
  'PriorityClass',
  'PersistentVolume',
  'PersistentVolumeClaim',
  'Deployment',
  'StatefulSet',
  'CronJob',
  'PodDisruptionBudget',
];
const TYPE_ORDER_LAST = ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration'];

/** The legacy sort's rank of each kind: the `first` kinds before all others, the `last` after, in list order. */
export function legacyTypeOrders(first = TYPE_ORDER_FIRST, last = TYPE_ORDER_LAST): Map<string, number> {
  const m = new Map<string, number>();
  first.forEach((k, i) => m.set(k, -first.length + i));
  last.forEach((k, i) => m.set(k, 1 + i));
  return m;
}

/** The key the legacy sort orders kinds of equal rank by, with placeholders for empty parts. */
export function gvkSortString(gvk: Gvk): string {
  return [gvk.group || '~G', gvk.version || '~V', gvk.kind || '~K'].join('_');
}

/** Gvk.String(): kind.version.group with placeholders, as kustomize prints ids. */
export function gvkString(gvk: Gvk): string {
  return [gvk.kind || '[noKind]', gvk.version || '[noVer]', gvk.group || '[noGrp]'].join('.');
}

/** ResId.String(): `kind.version.group/name.namespace`, as kustomize prints ids in errors. */
export function idString(id: ResId): string {
  return `${gvkString(id.gvk)}/${id.name || '[noName]'}.${id.namespace || '[noNs]'}`;
}

/** A short human form for messages: Kind/name (in namespace). */
export function describeId(id: ResId): string {
  return `${id.gvk.kind}/${id.name}${id.namespace ? ` in namespace ${id.namespace}` : ''}`;
}
