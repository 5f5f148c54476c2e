/** kubescaffold/envtest: a real kube-apiserver + etcd for integration tests. */
export { TestEnvironment, type TestEnvironmentOptions } from './environment.js';
export {
  BinariesNotFoundError,
  findBinaries,
  type Binaries,
  type BinariesSource,
  type FindBinariesOptions,
} from './binaries.js';
export { ensureBinaries, type EnsureBinariesOptions } from './ensure.js';
export { buildBinaries, type BuildOptions, type BuildResult } from './build.js';
export { defaultCacheRoot } from './paths.js';
export { DEFAULT_ETCD_VERSION, DEFAULT_KUBERNETES_VERSION } from './versions.js';
export type { CustomResourceDefinition } from './crds.js';
export { WebhookInstaller, readWebhookConfigurations, type WebhookInstallOptions, type InstalledWebhookOptions, type WebhookConfiguration } from './webhooks.js';
