/**
 * client-go's tools/clientcmd: the cluster configuration (`KubeConfig`, what a client needs to reach one API server as
 * one user), loaded from kubeconfig files or a pod's service account in controller-runtime's order, and written back
 * as a kubeconfig file. `newClient(kc)` (@kubescaffold/runtime/rest) and the manager take what these loaders return.
 *
 * @module @kubescaffold/runtime/clientcmd
 */
export type {
  ExecAPIVersion,
  ExecConfig,
  ExecEnvVar,
  ExecInteractiveMode,
  Impersonation,
  KubeConfig,
  KubeConfigAuth,
  KubeConfigTLS,
} from './kubeconfig-types.js';
export { currentNamespace, kubeConfigToYaml, loadKubeConfig, type LoadKubeConfigOptions } from './kubeconfig.js';
export { kubeConfigFromYaml, type KubeConfigFromYamlOptions } from './kubeconfig-file.js';
export {
  DEFAULT_SERVICE_ACCOUNT_DIR,
  SERVICE_ACCOUNT_DIR_ENV,
  inClusterConfig,
  serviceAccountDir,
  type Environment,
  type InClusterConfigOptions,
} from './in-cluster.js';
export { KubeConfigError, isKubeConfigError, type KubeConfigErrorReason } from './kubeconfig-error.js';
