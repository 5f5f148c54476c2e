import type {
  CoreV1Event,
  EventsV1Event,
  V1ClusterRole,
  V1ClusterRoleBinding,
  V1ConfigMap,
  V1CronJob,
  V1CustomResourceDefinition,
  V1DaemonSet,
  V1Deployment,
  V1EndpointSlice,
  V1Ingress,
  V1Job,
  V1Lease,
  V1MutatingWebhookConfiguration,
  V1Namespace,
  V1Node,
  V1PersistentVolume,
  V1PersistentVolumeClaim,
  V1Pod,
  V1ReplicaSet,
  V1Role,
  V1RoleBinding,
  V1Secret,
  V1Service,
  V1ServiceAccount,
  V1StatefulSet,
  V1ValidatingWebhookConfiguration,
} from '@kubernetes/client-node';
import { defineResource } from './resource.js';
import type { Resource } from './types.js';

// Descriptors for the built-in kinds operators use most, typed with @kubernetes/client-node's models.
const core = (kind: string, plural: string, namespaced = true) => ({
  group: '',
  version: 'v1',
  kind,
  plural,
  namespaced,
});

/** The Namespace resource (core v1), typed with @kubernetes/client-node's V1Namespace. */
export const Namespaces: Resource<V1Namespace> = defineResource(core('Namespace', 'namespaces', false));
/** The Node resource (core v1), typed with @kubernetes/client-node's V1Node. */
export const Nodes: Resource<V1Node> = defineResource(core('Node', 'nodes', false));
/** The Pod resource (core v1), typed with @kubernetes/client-node's V1Pod. */
export const Pods: Resource<V1Pod> = defineResource(core('Pod', 'pods'));
/** The Service resource (core v1), typed with @kubernetes/client-node's V1Service. */
export const Services: Resource<V1Service> = defineResource(core('Service', 'services'));
/** The ConfigMap resource (core v1), typed with @kubernetes/client-node's V1ConfigMap. */
export const ConfigMaps: Resource<V1ConfigMap> = defineResource(core('ConfigMap', 'configmaps'));
/** The Secret resource (core v1), typed with @kubernetes/client-node's V1Secret. */
export const Secrets: Resource<V1Secret> = defineResource(core('Secret', 'secrets'));
/** The ServiceAccount resource (core v1), typed with @kubernetes/client-node's V1ServiceAccount. */
export const ServiceAccounts: Resource<V1ServiceAccount> = defineResource(core('ServiceAccount', 'serviceaccounts'));
/** The PersistentVolumeClaim resource (core v1), typed with @kubernetes/client-node's V1PersistentVolumeClaim. */
export const PersistentVolumeClaims: Resource<V1PersistentVolumeClaim> = defineResource(
  core('PersistentVolumeClaim', 'persistentvolumeclaims'),
);
/** The PersistentVolume resource (core v1), typed with @kubernetes/client-node's V1PersistentVolume. */
export const PersistentVolumes: Resource<V1PersistentVolume> = defineResource(
  core('PersistentVolume', 'persistentvolumes', false),
);
/** The Event resource (core v1), typed with @kubernetes/client-node's CoreV1Event. */
export const CoreEvents: Resource<CoreV1Event> = defineResource(core('Event', 'events'));
/** The Event resource (events.k8s.io/v1), typed with @kubernetes/client-node's EventsV1Event. */
export const Events: Resource<EventsV1Event> = defineResource({
  group: 'events.k8s.io',
  version: 'v1',
  kind: 'Event',
  plural: 'events',
  namespaced: true,
});

const apps = (kind: string, plural: string) => ({ group: 'apps', version: 'v1', kind, plural, namespaced: true });
/** The Deployment resource (apps/v1), typed with @kubernetes/client-node's V1Deployment. */
export const Deployments: Resource<V1Deployment> = defineResource(apps('Deployment', 'deployments'));
/** The StatefulSet resource (apps/v1), typed with @kubernetes/client-node's V1StatefulSet. */
export const StatefulSets: Resource<V1StatefulSet> = defineResource(apps('StatefulSet', 'statefulsets'));
/** The DaemonSet resource (apps/v1), typed with @kubernetes/client-node's V1DaemonSet. */
export const DaemonSets: Resource<V1DaemonSet> = defineResource(apps('DaemonSet', 'daemonsets'));
/** The ReplicaSet resource (apps/v1), typed with @kubernetes/client-node's V1ReplicaSet. */
export const ReplicaSets: Resource<V1ReplicaSet> = defineResource(apps('ReplicaSet', 'replicasets'));

/** The Job resource (batch/v1), typed with @kubernetes/client-node's V1Job. */
export const Jobs: Resource<V1Job> = defineResource({
  group: 'batch',
  version: 'v1',
  kind: 'Job',
  plural: 'jobs',
  namespaced: true,
});
/** The CronJob resource (batch/v1), typed with @kubernetes/client-node's V1CronJob. */
export const CronJobs: Resource<V1CronJob> = defineResource({
  group: 'batch',
  version: 'v1',
  kind: 'CronJob',
  plural: 'cronjobs',
  namespaced: true,
});
/** The Lease resource (coordination.k8s.io/v1), typed with @kubernetes/client-node's V1Lease. */
export const Leases: Resource<V1Lease> = defineResource({
  group: 'coordination.k8s.io',
  version: 'v1',
  kind: 'Lease',
  plural: 'leases',
  namespaced: true,
});
/** The EndpointSlice resource (discovery.k8s.io/v1), typed with @kubernetes/client-node's V1EndpointSlice. */
export const EndpointSlices: Resource<V1EndpointSlice> = defineResource({
  group: 'discovery.k8s.io',
  version: 'v1',
  kind: 'EndpointSlice',
  plural: 'endpointslices',
  namespaced: true,
});
/** The Ingress resource (networking.k8s.io/v1), typed with @kubernetes/client-node's V1Ingress. */
export const Ingresses: Resource<V1Ingress> = defineResource({
  group: 'networking.k8s.io',
  version: 'v1',
  kind: 'Ingress',
  plural: 'ingresses',
  namespaced: true,
});

const rbac = (kind: string, plural: string, namespaced: boolean) => ({
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  kind,
  plural,
  namespaced,
});
/** The Role resource (rbac.authorization.k8s.io/v1), typed with @kubernetes/client-node's V1Role. */
export const Roles: Resource<V1Role> = defineResource(rbac('Role', 'roles', true));
/** The RoleBinding resource (rbac.authorization.k8s.io/v1), typed with @kubernetes/client-node's V1RoleBinding. */
export const RoleBindings: Resource<V1RoleBinding> = defineResource(rbac('RoleBinding', 'rolebindings', true));
/** The ClusterRole resource (rbac.authorization.k8s.io/v1), typed with @kubernetes/client-node's V1ClusterRole. */
export const ClusterRoles: Resource<V1ClusterRole> = defineResource(rbac('ClusterRole', 'clusterroles', false));
/**
 * The ClusterRoleBinding resource (rbac.authorization.k8s.io/v1), typed with @kubernetes/client-node's
 * V1ClusterRoleBinding.
 */
export const ClusterRoleBindings: Resource<V1ClusterRoleBinding> = defineResource(
  rbac('ClusterRoleBinding', 'clusterrolebindings', false),
);

/**
 * The MutatingWebhookConfiguration resource (admissionregistration.k8s.io/v1), typed with @kubernetes/client-node's
 * V1CustomResourceDefinition.
 */
export const CustomResourceDefinitions: Resource<V1CustomResourceDefinition> = defineResource({
  group: 'apiextensions.k8s.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  plural: 'customresourcedefinitions',
  namespaced: false,
});
const admission = (kind: string, plural: string) => ({
  group: 'admissionregistration.k8s.io',
  version: 'v1',
  kind,
  plural,
  namespaced: false,
});
/**
 * The MutatingWebhookConfiguration resource (admissionregistration.k8s.io/v1), typed with @kubernetes/client-node's
 * V1MutatingWebhookConfiguration.
 */
export const MutatingWebhookConfigurations: Resource<V1MutatingWebhookConfiguration> = defineResource(
  admission('MutatingWebhookConfiguration', 'mutatingwebhookconfigurations'),
);
/**
 * The ValidatingWebhookConfiguration resource (admissionregistration.k8s.io/v1), typed with @kubernetes/client-node's
 * V1ValidatingWebhookConfiguration.
 */
export const ValidatingWebhookConfigurations: Resource<V1ValidatingWebhookConfiguration> = defineResource(
  admission('ValidatingWebhookConfiguration', 'validatingwebhookconfigurations'),
);

/**
 * Every built-in resource descriptor of this module, for a Scheme or a RESTMapper that should not need discovery for
 * built-ins.
 */
export const builtinResources: readonly Resource[] = [
  Namespaces,
  Nodes,
  Pods,
  Services,
  ConfigMaps,
  Secrets,
  ServiceAccounts,
  PersistentVolumeClaims,
  PersistentVolumes,
  CoreEvents,
  Events,
  Deployments,
  StatefulSets,
  DaemonSets,
  ReplicaSets,
  Jobs,
  CronJobs,
  Leases,
  EndpointSlices,
  Ingresses,
  Roles,
  RoleBindings,
  ClusterRoles,
  ClusterRoleBindings,
  CustomResourceDefinitions,
  MutatingWebhookConfigurations,
  ValidatingWebhookConfigurations,
];
