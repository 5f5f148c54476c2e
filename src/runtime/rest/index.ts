/**
 * The API machinery under the controllers (client-go's rest, dynamic and errors, apimachinery's selectors and
 * scheme): `RestClient` and the HTTP transport with its authentication, resource descriptors and the built-in ones,
 * API errors, watch streams, label and field selectors. The kubeconfig loaders are in @kubescaffold/runtime/clientcmd,
 * `DiscoveryClient` in @kubescaffold/runtime/discovery, `RESTMapper` in @kubescaffold/runtime/restmapper.
 *
 * @module @kubescaffold/runtime/rest
 */
export type {
  ApplyConfiguration,
  ApplyOptions,
  CreateOptions,
  DeepPartial,
  FieldValidation,
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
// The configuration newClient takes; clientcmd loads it.
export type { KubeConfig } from '../clientcmd/kubeconfig-types.js';
export {
  TimeoutError,
  isTimeoutError,
  TransportError,
  isTransportError,
  type TransportErrorReason,
} from '../errors.js';
export type { AuthenticatorOptions } from './auth.js';
export type { ExecPluginOptions } from './exec.js';
export {
  HttpTransport,
  IdleTimeoutError,
  encodeQuery,
  isAbortError,
  restRetryChannel,
  restSizeChannel,
  responseBody,
  type HttpMethod,
  type RestRetryMessage,
  type RestSizeMessage,
  type HttpRequest,
  type QueryValue,
  type TransportOptions,
} from './transport.js';
export {
  RestClient,
  newClient,
  type ClientOptions,
  type ListItemOptions,
  type PartialObjectMetadata,
  type RequestOptions,
  type Scale,
  type SubResourceClient,
} from './client.js';
export { noWarnings, parseWarningHeaders, warningLogger, type Warning, type WarningHandler } from './warnings.js';
export { decodeWatchStream, errorFromWatchEvent } from './watch.js';
export type { ListDecodeOptions } from './list-decoder.js';
export { Scheme, newScheme } from './scheme.js';
export {
  parseSelector,
  parseFieldSelector,
  selectorFromSet,
  selectorFromLabelSelector,
  everything as everythingSelector,
  nothing as nothingSelector,
  SelectorParseError,
  isSelectorParseError,
  type Selector,
  type LabelSelector,
  type Requirement,
  type SelectorOperator,
  type FieldRequirement,
} from './selector.js';
export * from './builtins.js';
