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
const core = (kind: string, plural: string, namespaced = true) => ({ group: '', version: 'v1', kind, plural, namespaced });

export const Namespaces: Resource<V1Namespace> = defineResource(core('Namespace', 'namespaces', false));
export const Nodes: Resource<V1Node> = defineResource(core('Node', 'nodes', false));
export const Pods: Resource<V1Pod> = defineResource(core('Pod', 'pods'));
export const Services: Resource<V1Service> = defineResource(core('Service', 'services'));
export const ConfigMaps: Resource<V1ConfigMap> = defineResource(core('ConfigMap', 'configmaps'));
export const Secrets: Resource<V1Secret> = defineResource(core('Secret', 'secrets'));
export const ServiceAccounts: Resource<V1ServiceAccount> = defineResource(core('ServiceAccount', 'serviceaccounts'));
export const PersistentVolumeClaims: Resource<V1PersistentVolumeClaim> = defineResource(core('PersistentVolumeClaim', 'persistentvolumeclaims'));
export const PersistentVolumes: Resource<V1PersistentVolume> = defineResource(core('PersistentVolume', 'persistentvolumes', false));
export const CoreEvents: Resource<CoreV1Event> = defineResource(core('Event', 'events'));
export const Events: Resource<EventsV1Event> = defineResource({ group: 'events.k8s.io', version: 'v1', kind: 'Event', plural: 'events', namespaced: true });

const apps = (kind: string, plural: string) => ({ group: 'apps', version: 'v1', kind, plural, namespaced: true });
export const Deployments: Resource<V1Deployment> = defineResource(apps('Deployment', 'deployments'));
export const StatefulSets: Resource<V1StatefulSet> = defineResource(apps('StatefulSet', 'statefulsets'));
export const DaemonSets: Resource<V1DaemonSet> = defineResource(apps('DaemonSet', 'daemonsets'));
export const ReplicaSets: Resource<V1ReplicaSet> = defineResource(apps('ReplicaSet', 'replicasets'));

export const Jobs: Resource<V1Job> = defineResource({ group: 'batch', version: 'v1', kind: 'Job', plural: 'jobs', namespaced: true });
export const CronJobs: Resource<V1CronJob> = defineResource({ group: 'batch', version: 'v1', kind: 'CronJob', plural: 'cronjobs', namespaced: true });
export const Leases: Resource<V1Lease> = defineResource({ group: 'coordination.k8s.io', version: 'v1', kind: 'Lease', plural: 'leases', namespaced: true });
export const EndpointSlices: Resource<V1EndpointSlice> = defineResource({ group: 'discovery.k8s.io', version: 'v1', kind: 'EndpointSlice', plural: 'endpointslices', namespaced: true });
export const Ingresses: Resource<V1Ingress> = defineResource({ group: 'networking.k8s.io', version: 'v1', kind: 'Ingress', plural: 'ingresses', namespaced: true });

const rbac = (kind: string, plural: string, namespaced: boolean) => ({ group: 'rbac.authorization.k8s.io', version: 'v1', kind, plural, namespaced });
export const Roles: Resource<V1Role> = defineResource(rbac('Role', 'roles', true));
export const RoleBindings: Resource<V1RoleBinding> = defineResource(rbac('RoleBinding', 'rolebindings', true));
export const ClusterRoles: Resource<V1ClusterRole> = defineResource(rbac('ClusterRole', 'clusterroles', false));
export const ClusterRoleBindings: Resource<V1ClusterRoleBinding> = defineResource(rbac('ClusterRoleBinding', 'clusterrolebindings', false));

export const CustomResourceDefinitions: Resource<V1CustomResourceDefinition> = defineResource({
  group: 'apiextensions.k8s.io', version: 'v1', kind: 'CustomResourceDefinition', plural: 'customresourcedefinitions', namespaced: false,
});
const admission = (kind: string, plural: string) => ({ group: 'admissionregistration.k8s.io', version: 'v1', kind, plural, namespaced: false });
export const MutatingWebhookConfigurations: Resource<V1MutatingWebhookConfiguration> = defineResource(admission('MutatingWebhookConfiguration', 'mutatingwebhookconfigurations'));
export const ValidatingWebhookConfigurations: Resource<V1ValidatingWebhookConfiguration> = defineResource(admission('ValidatingWebhookConfiguration', 'validatingwebhookconfigurations'));

/** All of the above, for a Scheme or a RESTMapper that should not need discovery for built-ins. */
export const builtinResources: readonly Resource[] = [
  Namespaces, Nodes, Pods, Services, ConfigMaps, Secrets, ServiceAccounts, PersistentVolumeClaims, PersistentVolumes,
  CoreEvents, Events, Deployments, StatefulSets, DaemonSets, ReplicaSets, Jobs, CronJobs, Leases, EndpointSlices,
  Ingresses, Roles, RoleBindings, ClusterRoles, ClusterRoleBindings, CustomResourceDefinitions,
  MutatingWebhookConfigurations, ValidatingWebhookConfigurations,
];
