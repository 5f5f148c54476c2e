/**
 * The API machinery under the controllers (client-go's rest, dynamic, discovery, errors).
 *
 * @module @kubescaffold/runtime/rest
 */
export type {
  Client,
  CreateOptions,
  DeleteCollectionOptions,
  DeleteOptions,
  GroupVersionKind,
  GroupVersionResource,
  KubeObject,
  ListMeta,
  ListOptions,
  ObjectKey,
  ObjectList,
  ObjectMeta,
  PatchOptions,
  PatchType,
  Preconditions,
  Resource,
  ResourceDefinition,
  Status,
  SubResourceWriter,
  TypeMeta,
  UpdateOptions,
  WatchEvent,
  WatchEventType,
  WatchOptions,
} from './types.js';
export { collectionPath, defineResource, gvkOf, gvrOf, objectPath, parseApiVersion, resourceId } from './resource.js';
export {
  ApiError,
  isAlreadyExists,
  isBadRequest,
  isConflict,
  isForbidden,
  isGone,
  isInternalError,
  isInvalid,
  isNotFound,
  isResourceExpired,
  isServerTimeout,
  isTimeout,
  isTooManyRequests,
  isUnauthorized,
} from './errors.js';
export { requestPermission, permissionKey, type RequestPermission } from './forbidden.js';
export {
  DEFAULT_SERVICE_ACCOUNT_DIR,
  SERVICE_ACCOUNT_DIR_ENV,
  currentNamespace,
  inClusterConfig,
  kubeConfigToYaml,
  loadKubeConfig,
  serviceAccountDir,
  type Environment,
  type ExecAPIVersion,
  type ExecConfig,
  type ExecEnvVar,
  type ExecInteractiveMode,
  type Impersonation,
  type InClusterConfigOptions,
  type KubeConfig,
  type KubeConfigAuth,
  type KubeConfigTLS,
  type LoadKubeConfigOptions,
} from './kubeconfig.js';
export { KubeConfigError, type KubeConfigErrorReason } from './kubeconfig-error.js';
export { TimeoutError, isTimeoutError, TransportError, isTransportError, type TransportErrorReason } from '../errors.js';
export type { AuthenticatorOptions } from './auth.js';
export type { ExecPluginOptions } from './exec.js';
export {
  HttpTransport,
  IdleTimeoutError,
  encodeQuery,
  isAbortError,
  restRetryChannel,
  restSizeChannel,
  type HttpMethod,
  type RestRetryMessage,
  type RestSizeMessage,
  type HttpRequest,
  type QueryValue,
  type TransportOptions,
} from './transport.js';
export { RestClient, newClient, type PartialObjectMetadata, type RequestOptions, type Scale, type SubResourceClient } from './client.js';
export { decodeWatchStream, errorFromWatchEvent } from './watch.js';
export {
  DiscoveryClient,
  type APIGroup,
  type APIGroupVersion,
  type APIResource,
  type APIResourceList,
  type ServerVersion,
} from './discovery.js';
export { RESTMapper, NoKindMatchError, isNoMatch } from './restmapper.js';
export { Scheme, newScheme } from './scheme.js';
export {
  parseSelector,
  parseFieldSelector,
  selectorFromSet,
  selectorFromLabelSelector,
  everything as everythingSelector,
  nothing as nothingSelector,
  SelectorParseError,
  type Selector,
  type LabelSelector,
  type Requirement,
  type SelectorOperator,
  type FieldRequirement,
} from './selector.js';
export * from './builtins.js';
