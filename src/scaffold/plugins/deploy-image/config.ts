// PROJECT's record of the deploy-image plugin, in kubebuilder's shape (deploy-image/v1alpha1's PluginConfig): one
// entry per resource, with the flags it was scaffolded with as strings.

/** The flags a resource was scaffolded with; kubebuilder omits the empty ones. */
export interface DeployImageOptions {
  image?: string;
  containerCommand?: string;
  containerPort?: string;
  runAsUser?: string;
}

/** One resource the plugin scaffolded. */
export interface DeployImageResource {
  domain?: string;
  group?: string;
  kind: string;
  options?: DeployImageOptions;
  version: string;
}

export interface DeployImageConfig {
  resources?: DeployImageResource[];
}

/** Whether PROJECT's value for the plugin has the shape kubebuilder writes. */
export function isDeployImageConfig(value: unknown): value is DeployImageConfig {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const resources = (value as { resources?: unknown }).resources;
  if (resources === undefined) return true;
  return (
    Array.isArray(resources) &&
    resources.every(
      (r) =>
        typeof r === 'object' &&
        r !== null &&
        typeof (r as DeployImageResource).kind === 'string' &&
        typeof (r as DeployImageResource).version === 'string',
    )
  );
}
