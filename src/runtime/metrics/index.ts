/**
 * The registry /metrics serves (controller-runtime's metrics.Registry; register your own metrics here), the metrics
 * server, and the controller, workqueue, REST client and leader election metrics.
 *
 * @module @kubescaffold/runtime/metrics
 */
export { registry, registerProcessMetrics } from './registry.js';
export { MetricsServer, type MetricsServerOptions } from './server.js';
export { DelegatingAuth, type AuthDecision } from './auth.js';
export { generateSelfSignedCert, type CertKeyPair } from './selfsigned.js';
export { workqueueMetricsProvider } from './workqueue.js';
export { leaderElectionMasterStatus, leaderElectionSlowpathTotal } from './leaderelection.js';
export {
  ControllerMetrics,
  reconcileTotal,
  reconcileErrors,
  terminalReconcileErrors,
  reconcilePanics,
  reconcileTimeouts,
  reconcileTime,
  workerCount,
  activeWorkers,
  type ReconcileOutcome,
} from './controller.js';
export {
  trackRestClientMetrics,
  restClientRequests,
  restClientRequestDuration,
  restClientRequestSize,
  restClientResponseSize,
  restClientRequestRetries,
} from './restclient.js';
