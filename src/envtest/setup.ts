/**
 * Obtaining the control plane's binaries, as setup-envtest does: find them, download them from the envtest release
 * index, or build them from the Go module proxy, into a cache of one directory per version. This entry point loads
 * none of the control plane, so a CLI that only fetches binaries starts fast.
 *
 * @module @kubescaffold/envtest/setup
 */
export { EnvtestError } from './errors.js';
export {
  BinariesNotFoundError,
  describeSource,
  findBinaries,
  type Binaries,
  type BinariesSource,
  type FindBinariesOptions,
} from './binaries/find.js';
export { ensureBinaries, INSTALLED_ONLY_ENV, type EnsureBinariesOptions } from './binaries/ensure.js';
export { listVersions, type InstalledVersion, type Listing, type ListOptions } from './binaries/list.js';
export { DEFAULT_INDEX_URL, INDEX_ENV, ReleaseIndexError, type EnvtestRelease } from './binaries/release-index.js';
export { DownloadError } from './binaries/download-error.js';
export { ArchiveError } from './binaries/unpack.js';
export { formatPlatform, hostPlatform, type Platform } from './binaries/platform.js';
export { buildBinaries, type BuildOptions, type BuildResult } from './binaries/build.js';
export { defaultCacheRoot } from './binaries/paths.js';
export { DEFAULT_ETCD_VERSION, DEFAULT_KUBERNETES_VERSION, parseVersion, type Version } from './versions.js';
