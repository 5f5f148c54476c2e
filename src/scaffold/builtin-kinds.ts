import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import * as rest from '@kubescaffold/runtime/rest';

/**
 * Kubernetes' own API groups, for controllers of built-in kinds (`create api --resource=false`): kubebuilder's
 * coreGroups, mapped to the real API group name.
 */
const builtInGroups: Record<string, string> = {
  core: '',
  apps: 'apps',
  autoscaling: 'autoscaling',
  batch: 'batch',
  extensions: 'extensions',
  policy: 'policy',
  admissionregistration: 'admissionregistration.k8s.io',
  apiextensions: 'apiextensions.k8s.io',
  authentication: 'authentication.k8s.io',
  authorization: 'authorization.k8s.io',
  certificates: 'certificates.k8s.io',
  coordination: 'coordination.k8s.io',
  discovery: 'discovery.k8s.io',
  events: 'events.k8s.io',
  networking: 'networking.k8s.io',
  node: 'node.k8s.io',
  'rbac.authorization': 'rbac.authorization.k8s.io',
  scheduling: 'scheduling.k8s.io',
  storage: 'storage.k8s.io',
};

// Built-in kinds that are not namespaced; every other built-in kind is.
const clusterScopedKinds = new Set([
  'APIService',
  'CertificateSigningRequest',
  'ClusterRole',
  'ClusterRoleBinding',
  'ComponentStatus',
  'CSIDriver',
  'CSINode',
  'CustomResourceDefinition',
  'FlowSchema',
  'IngressClass',
  'MutatingWebhookConfiguration',
  'Namespace',
  'Node',
  'PersistentVolume',
  'PriorityClass',
  'PriorityLevelConfiguration',
  'RuntimeClass',
  'StorageClass',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionPolicyBinding',
  'ValidatingWebhookConfiguration',
  'VolumeAttachment',
]);

/** The real API group of a built-in group name given to --group, or undefined when it is not one. */
export function builtInAPIGroup(group: string): string | undefined {
  return Object.hasOwn(builtInGroups, group) ? builtInGroups[group] : undefined;
}

export function isClusterScopedBuiltIn(kind: string): boolean {
  return clusterScopedKinds.has(kind);
}

/** The @kubernetes/client-node model name of a built-in kind: v1 + Deployment → V1Deployment. */
export function clientNodeModelName(version: string, kind: string): string {
  return version.charAt(0).toUpperCase() + version.slice(1) + kind;
}

/** Whether @kubernetes/client-node (a dependency of this package) ships a model of this name. */
export function clientNodeHasModel(name: string): boolean {
  const require = createRequire(import.meta.url);
  const entry = require.resolve('@kubernetes/client-node');
  const modelsDir = join(dirname(entry), 'gen', 'models');
  return existsSync(join(modelsDir, `${name}.js`)) || existsSync(join(modelsDir, `${name}.d.ts`));
}

/**
 * The name @kubescaffold/runtime/rest exports a built-in kind's descriptor by (ConfigMaps, Deployments, CoreEvents,
 * ...), found among its exports by the API group ('' for core), version and kind; undefined when the runtime has none,
 * and a scaffold then defines the descriptor itself. Read from the runtime rather than listed here, so that a
 * descriptor the runtime adds is used as soon as it is there.
 */
export function runtimeDescriptorName(apiGroup: string, version: string, kind: string): string | undefined {
  return runtimeDescriptors().find(
    ({ resource: r }) => r.group === apiGroup && r.version === version && r.kind === kind,
  )?.name;
}

let descriptors: Array<{ name: string; resource: rest.Resource }> | undefined;

function runtimeDescriptors(): Array<{ name: string; resource: rest.Resource }> {
  descriptors ??= Object.entries(rest).flatMap(([name, value]) =>
    rest.builtinResources.includes(value as rest.Resource) ? [{ name, resource: value as rest.Resource }] : [],
  );
  return descriptors;
}
