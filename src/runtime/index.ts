/**
 * What a scaffolded operator imports: the kubeconfig, the client, resource descriptors and API value types,
 * reconcilers and their controllers, the manager, and logging. Everything else is in the subpaths, named as
 * controller-runtime's and client-go's packages are: @kubescaffold/runtime/rest, clientcmd, discovery, restmapper,
 * cache, workqueue, client, controller, manager, fake, webhook, metrics, json, certs and multicluster.
 *
 * `k8s` holds the TypeScript types of Kubernetes' own objects, such as `k8s.V1Deployment` and `k8s.V1PodSpec`:
 * @kubernetes/client-node's models, as types only (`import type { k8s } from '@kubescaffold/runtime'`), so an operator
 * that uses them runs without that package. Their reference is @kubernetes/client-node's.
 *
 * @module @kubescaffold/runtime
 */

/**
 * The TypeScript types of Kubernetes' own API objects (`k8s.V1Deployment`, `k8s.V1PodSpec`, ...):
 * @kubernetes/client-node's models, types only, so nothing of that package is loaded at run time. The descriptors
 * of @kubescaffold/runtime/rest (`Deployments`, `Pods`, ...) are typed with them.
 */
export type * as k8s from '@kubernetes/client-node';

// Reaching the API server.
export { loadKubeConfig, type LoadKubeConfigOptions } from './clientcmd/kubeconfig.js';
export type { KubeConfig } from './clientcmd/kubeconfig-types.js';
export { newClient } from './rest/client.js';
export { defineResource } from './rest/resource.js';
export { ApiError, isAlreadyExists, isConflict, isNotFound } from './rest/errors.js';
export type { Client } from './client/client.js';
export type { KubeObject, ListMeta, ObjectKey, ObjectMeta, Resource, TypeMeta } from './rest/types.js';

// The runtime's own typed errors, each with its isX predicate (API errors are ApiError, above).
export {
  ConfigurationError,
  isConfigurationError,
  InvalidObjectError,
  isInvalidObjectError,
  LifecycleError,
  isLifecycleError,
  type LifecycleErrorReason,
  TimeoutError,
  isTimeoutError,
  TransportError,
  isTransportError,
  type TransportErrorReason,
  ShutdownError,
  isShutdownError,
  LeaderElectionLostError,
  isLeaderElectionLost,
  ShardTermEndedError,
  HeapLimitError,
  isHeapLimitError,
  isShardTermEnded,
} from './errors.js';

// The value types that API types are written with (the marker generator gives them controller-gen's schemas).
export type {
  int32,
  int64,
  int,
  bytes,
  Condition,
  Quantity,
  IntOrString,
  Time,
  MicroTime,
  Duration,
  JSONValue,
  RawExtension,
} from './client/apitypes.js';

// Reconcilers and their controllers.
export { TerminalError, isTerminalError } from './reconcile/terminal.js';
export type { Reconciler, Request, Result, ReconcileContext } from './reconcile/types.js';
export { newControllerManagedBy, newTypedControllerManagedBy } from './builder/builder.js';

// The manager.
export { Manager } from './manager/manager.js';
export type { ManagerOptions } from './manager/options.js';
export { setupSignalHandler } from './manager/signals.js';
export { parseShardKey, type ShardKey } from './sharding/selector.js';
export { ping } from './healthz/healthz.js';

// Logging.
export {
  log,
  newLogger,
  configureLog,
  parseLogLevel,
  enableSourceMaps,
  type Logger,
  type LogLevel,
} from './log/index.js';

// Command-line flags, parsed as Go's flag package does.
export {
  parseFlags,
  parseFlagsOrExit,
  flagUsage,
  FlagError,
  isFlagError,
  type FlagErrorReason,
  type FlagDefinition,
  type BoolFlag,
  type StringFlag,
  type IntFlag,
  type DurationFlag,
  type ValueFlag,
  type FlagDefinitions,
  type FlagValue,
  type FlagValues,
  type ParseFlagsOptions,
  type ParsedFlags,
} from './flag/index.js';
