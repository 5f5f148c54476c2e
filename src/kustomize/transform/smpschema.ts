// The strategic-merge facts kustomize takes from its compiled-in Kubernetes 1.21 OpenAPI document: which lists merge
// element by element, and on which keys. Lists not described here (and every list of a custom resource) are replaced.

/** The strategic-merge facts of one field: its children, its list items, and how its list merges. */
export interface SchemaNode {
  fields?: Record<string, SchemaNode>;
  /** The schema of a list's elements. */
  items?: SchemaNode;
  /** x-kubernetes-patch-strategy, e.g. 'merge' or 'merge,retainKeys'. */
  strategy?: string;
  /** x-kubernetes-list-map-keys, else [x-kubernetes-patch-merge-key], else [] (a list of scalars). */
  keys?: string[];
}

const mergeList = (keys: string[], items?: SchemaNode, strategy = 'merge'): SchemaNode => ({
  strategy,
  keys,
  ...(items ? { items } : {}),
});

const objectMeta: SchemaNode = { fields: { finalizers: mergeList([]), ownerReferences: mergeList(['uid']) } };
const conditions = mergeList(['type']);
const container: SchemaNode = {
  fields: {
    ports: mergeList(['containerPort', 'protocol']),
    env: mergeList(['name']),
    volumeMounts: mergeList(['mountPath']),
    volumeDevices: mergeList(['devicePath']),
  },
};
const podSpec: SchemaNode = {
  fields: {
    containers: mergeList(['name'], container),
    initContainers: mergeList(['name'], container),
    ephemeralContainers: mergeList(['name'], container),
    volumes: mergeList(['name'], undefined, 'merge,retainKeys'),
    imagePullSecrets: mergeList(['name']),
    hostAliases: mergeList(['ip']),
    topologySpreadConstraints: mergeList(['topologyKey', 'whenUnsatisfiable']),
  },
};
const podTemplate: SchemaNode = { fields: { metadata: objectMeta, spec: podSpec } };
const withStatusConditions: SchemaNode = { fields: { conditions } };

function root(spec?: SchemaNode, extra: Record<string, SchemaNode> = {}): SchemaNode {
  return { fields: { metadata: objectMeta, ...(spec ? { spec } : {}), ...extra } };
}

const workload = root({ fields: { template: podTemplate } }, { status: withStatusConditions });
const webhooks = root(undefined, { webhooks: mergeList(['name']) });

const SCHEMAS: Record<string, SchemaNode> = {
  'v1 Pod': root(podSpec, { status: { fields: { conditions, podIPs: mergeList(['ip']) } } }),
  'v1 PodTemplate': root(undefined, { template: podTemplate }),
  'v1 ReplicationController': workload,
  'v1 Service': root({ fields: { ports: mergeList(['port', 'protocol']) } }, { status: withStatusConditions }),
  'v1 ServiceAccount': root(undefined, { secrets: mergeList(['name']) }),
  'v1 Namespace': root(undefined, { status: withStatusConditions }),
  'v1 Node': root(undefined, { status: { fields: { conditions, addresses: mergeList(['type']) } } }),
  'v1 PersistentVolumeClaim': root(undefined, { status: withStatusConditions }),
  'apps/v1 Deployment': workload,
  'apps/v1 DaemonSet': workload,
  'apps/v1 ReplicaSet': workload,
  'apps/v1 StatefulSet': workload,
  'batch/v1 Job': workload,
  'batch/v1 CronJob': root({
    fields: { jobTemplate: { fields: { metadata: objectMeta, spec: { fields: { template: podTemplate } } } } },
  }),
  'batch/v1beta1 CronJob': root({
    fields: { jobTemplate: { fields: { metadata: objectMeta, spec: { fields: { template: podTemplate } } } } },
  }),
  'admissionregistration.k8s.io/v1 MutatingWebhookConfiguration': webhooks,
  'admissionregistration.k8s.io/v1 ValidatingWebhookConfiguration': webhooks,
  'admissionregistration.k8s.io/v1beta1 MutatingWebhookConfiguration': webhooks,
  'admissionregistration.k8s.io/v1beta1 ValidatingWebhookConfiguration': webhooks,
};

// Other built-in kinds are known to the schema too; only their metadata lists merge.
const METADATA_ONLY = [
  'v1 ConfigMap',
  'v1 Secret',
  'v1 Endpoints',
  'v1 Event',
  'v1 LimitRange',
  'v1 ResourceQuota',
  'v1 PersistentVolume',
  'apps/v1 ControllerRevision',
  'rbac.authorization.k8s.io/v1 Role',
  'rbac.authorization.k8s.io/v1 ClusterRole',
  'rbac.authorization.k8s.io/v1 RoleBinding',
  'rbac.authorization.k8s.io/v1 ClusterRoleBinding',
  'networking.k8s.io/v1 NetworkPolicy',
  'networking.k8s.io/v1 Ingress',
  'networking.k8s.io/v1 IngressClass',
  'policy/v1 PodDisruptionBudget',
  'policy/v1beta1 PodDisruptionBudget',
  'autoscaling/v1 HorizontalPodAutoscaler',
  'autoscaling/v2beta1 HorizontalPodAutoscaler',
  'autoscaling/v2beta2 HorizontalPodAutoscaler',
  'coordination.k8s.io/v1 Lease',
  'scheduling.k8s.io/v1 PriorityClass',
  'storage.k8s.io/v1 StorageClass',
  'apiextensions.k8s.io/v1 CustomResourceDefinition',
  'apiregistration.k8s.io/v1 APIService',
  'certificates.k8s.io/v1 CertificateSigningRequest',
  'node.k8s.io/v1 RuntimeClass',
  'discovery.k8s.io/v1 EndpointSlice',
];

/** The schema kustomize would use for an object of this apiVersion and kind, or undefined (lists are replaced). */
export function schemaFor(apiVersion: string, kind: string): SchemaNode | undefined {
  const key = `${apiVersion} ${kind}`;
  return SCHEMAS[key] ?? (METADATA_ONLY.includes(key) ? root() : undefined);
}
