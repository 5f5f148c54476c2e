import { ScaffoldError } from '../../../errors.js';
import { readYamlDocuments, YamlInputError } from '../../../yaml/read.js';

/** One Kubernetes object of the installer (dist/install.yaml). */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name?: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

/** The installer's objects, with what the chart is built around: the manager, its namespace and the name prefix. */
export interface Installer {
  objects: K8sObject[];
  /** The manager Deployment (named <prefix>-controller-manager), when there is one. */
  manager: K8sObject | undefined;
  /** kustomize's namePrefix (config/default's `namePrefix: <project>-`, without the dash). */
  prefix: string;
  /** The namespace the manager runs in (config/default's `namespace:`). */
  namespace: string;
  /** Instances of the project's own CRDs (config/samples), which a chart does not install. */
  customResources: K8sObject[];
}

/** Parses an installer, refusing anything that is not a stream of Kubernetes objects; `file` names it in errors. */
export function parseInstaller(text: string, file: string, projectName: string): Installer {
  const objects: K8sObject[] = [];
  let docs: unknown[];
  try {
    docs = readYamlDocuments(text, file).map((d) => d.data);
  } catch (err) {
    if (!(err instanceof YamlInputError)) throw err;
    throw new ScaffoldError(`${err.message}; regenerate it with \`scaffold build-installer\``);
  }
  for (const value of docs) {
    if (value === null || value === undefined) continue;
    if (!isK8sObject(value))
      throw new ScaffoldError(
        `${file}: a document is not a Kubernetes object (apiVersion, kind, metadata); regenerate it with \`scaffold build-installer\``,
      );
    objects.push(value);
  }
  if (objects.length === 0)
    throw new ScaffoldError(
      `${file} holds no Kubernetes objects; run \`scaffold manifests\` and \`scaffold build-installer\` first`,
    );
  const groups = new Set(
    objects
      .filter((o) => o.kind === 'CustomResourceDefinition')
      .map((o) => (o.spec as { group?: string } | undefined)?.group),
  );
  const isCustom = (o: K8sObject): boolean =>
    o.kind !== 'CustomResourceDefinition' &&
    groups.has(o.apiVersion.split('/').length === 2 ? o.apiVersion.split('/')[0] : undefined);
  const manager = objects.find(
    (o) => o.kind === 'Deployment' && (o.metadata.name ?? '').endsWith('-controller-manager'),
  );
  const prefix = detectPrefix(objects, manager) ?? projectName;
  const namespaceObject = objects.find((o) => o.kind === 'Namespace');
  const namespace = manager?.metadata.namespace ?? namespaceObject?.metadata.name ?? `${prefix}-system`;
  return {
    objects: objects.filter((o) => !isCustom(o)),
    manager,
    prefix,
    namespace,
    customResources: objects.filter(isCustom),
  };
}

function isK8sObject(value: unknown): value is K8sObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.apiVersion === 'string' &&
    typeof v.kind === 'string' &&
    typeof v.metadata === 'object' &&
    v.metadata !== null
  );
}

/** The namePrefix, as kubebuilder estimates it: from the manager, its ServiceAccount or the namespace, if every Service has it. */
function detectPrefix(objects: K8sObject[], manager: K8sObject | undefined): string | undefined {
  const services = objects.filter((o) => o.kind === 'Service');
  const consistent = (prefix: string): boolean =>
    services.every((s) => (s.metadata.name ?? '').startsWith(`${prefix}-`));
  const candidates = [
    manager?.metadata.name?.replace(/-controller-manager$/, ''),
    objects
      .find((o) => o.kind === 'ServiceAccount' && (o.metadata.name ?? '').endsWith('-controller-manager'))
      ?.metadata.name?.replace(/-controller-manager$/, ''),
    objects
      .find((o) => o.kind === 'Namespace' && (o.metadata.name ?? '').endsWith('-system'))
      ?.metadata.name?.replace(/-system$/, ''),
  ];
  return candidates.find((c): c is string => c !== undefined && c !== '' && consistent(c));
}

/** The chart folder (under templates/) an object goes to, following config/'s layout as kubebuilder does. */
export function chartGroup(o: K8sObject): string | undefined {
  const name = o.metadata.name ?? '';
  switch (o.kind) {
    case 'Namespace':
      return undefined; // the release namespace: `helm install --namespace ... --create-namespace`
    case 'CustomResourceDefinition':
      return 'crd';
    case 'ServiceAccount':
    case 'Role':
    case 'ClusterRole':
    case 'RoleBinding':
    case 'ClusterRoleBinding':
      return 'rbac';
    case 'Deployment':
      return name.endsWith('-controller-manager') ? 'manager' : 'extras';
    case 'Service':
      if (name.endsWith('webhook-service')) return 'webhook';
      return name.endsWith('metrics-service') ? 'metrics' : 'extras';
    case 'ValidatingWebhookConfiguration':
    case 'MutatingWebhookConfiguration':
      return 'webhook';
    case 'Certificate':
    case 'Issuer':
      return o.apiVersion === 'cert-manager.io/v1' ? 'cert-manager' : 'extras';
    case 'ServiceMonitor':
      return o.apiVersion === 'monitoring.coreos.com/v1' ? 'prometheus' : 'extras';
    case 'NetworkPolicy':
      return o.apiVersion === 'networking.k8s.io/v1' ? 'network-policy' : 'extras';
    case 'PodDisruptionBudget':
      // config/sharding's budget for the manager's replicas
      return o.apiVersion === 'policy/v1' && name.endsWith('-controller-manager') ? 'sharding' : 'extras';
    default:
      return 'extras';
  }
}
