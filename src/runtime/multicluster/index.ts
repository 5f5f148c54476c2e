/**
 * One operator reconciling a fleet of clusters (sigs.k8s.io/multicluster-runtime): a provider finds clusters and
 * engages or disengages them while the manager runs; each engaged cluster has its own cache, informers and client;
 * requests name their cluster; the builder's for(), owns() and watches() apply in every cluster. Without a provider
 * the manager engages only its own cluster, named ''.
 *
 * @module @kubescaffold/runtime/multicluster
 */
export { Cluster, newCluster, kindName, type ClusterOptions, type ClusterCacheOptions } from './cluster.js';
export {
  ClusterNotFoundError,
  isClusterNotFound,
  type Aware,
  type Provider,
  type ProviderContext,
} from './provider.js';
export {
  MultiClusterManager,
  type MultiClusterManagerOptions,
  type ClusterHealthOptions,
  type ClusterState,
} from './manager.js';
export {
  MultiClusterController,
  type MultiClusterControllerOptions,
  type MultiClusterWatch,
  type MultiClusterRunnable,
  type ClusterWork,
  type ClusterScope,
  type PerClusterControllerOptions,
} from './controller.js';
export {
  MultiClusterBuilder,
  newMultiClusterControllerManagedBy,
  type MultiClusterBuilderOptions,
  type MultiClusterWatchOptions,
} from './builder.js';
export {
  perCluster,
  inCluster,
  clusterRequestString,
  type ClusterRequest,
  type ClusterHandlerFunc,
  type PerClusterReconciler,
} from './request.js';
export { type ClusterShardingOptions } from './sharding.js';
export { StaticProvider, type StaticProviderOptions } from './providers/static.js';
export {
  KubeconfigSecretProvider,
  KUBECONFIG_SECRET_LABEL,
  KUBECONFIG_SECRET_KEY,
  type KubeconfigSecretProviderOptions,
} from './providers/kubeconfig-secrets.js';
export {
  ClusterAPIProvider,
  CLUSTER_NAME_LABEL,
  type CAPICluster,
  type ClusterAPIProviderOptions,
} from './providers/cluster-api.js';
export {
  KubeconfigDirectoryProvider,
  type KubeconfigDirectoryProviderOptions,
} from './providers/kubeconfig-directory.js';
export { NamespaceProvider, type NamespaceProviderOptions } from './providers/namespaces.js';
export { NamespaceConfinedClient } from './confine.js';
