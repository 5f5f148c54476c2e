/**
 * A real kube-apiserver + etcd for integration tests (controller-runtime's pkg/envtest), and the management of their
 * binaries (setup-envtest's job): finding, downloading, building and listing them.
 *
 * @module kubescaffold/envtest
 */
export { TestEnvironment, type TestEnvironmentOptions } from './environment.js';
export {
  BinariesNotFoundError,
  describeSource,
  findBinaries,
  type Binaries,
  type BinariesSource,
  type FindBinariesOptions,
} from './binaries.js';
export { ensureBinaries, INSTALLED_ONLY_ENV, type EnsureBinariesOptions } from './ensure.js';
export { listVersions, type InstalledVersion, type Listing, type ListOptions } from './list.js';
export { DEFAULT_INDEX_URL, INDEX_ENV, ReleaseIndexError, type EnvtestRelease } from './release-index.js';
export { DownloadError } from './download-error.js';
export { ArchiveError } from './unpack.js';
export type { Platform } from './platform.js';
export { buildBinaries, type BuildOptions, type BuildResult } from './build.js';
export { defaultCacheRoot } from './paths.js';
export { DEFAULT_ETCD_VERSION, DEFAULT_KUBERNETES_VERSION } from './versions.js';
export type { CustomResourceDefinition } from './crds.js';
export { WebhookInstaller, readWebhookConfigurations, type WebhookInstallOptions, type InstalledWebhookOptions, type WebhookConfiguration } from './webhooks.js';
