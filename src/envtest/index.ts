/**
 * A real kube-apiserver + etcd for integration tests (controller-runtime's pkg/envtest), and the management of their
 * binaries (setup-envtest's job): finding, downloading, building and listing them.
 *
 * @module @kubescaffold/envtest
 */
export { TestEnvironment, type ControlPlaneExit, type TestEnvironmentOptions } from './controlplane/environment.js';
// One control plane for a whole test run (a vitest globalSetup), and a namespace of its own for each test file.
export {
  createTestNamespace,
  sharedTestEnvironment,
  startSharedTestEnvironment,
  type SharedTestEnvironment,
} from './controlplane/shared.js';
// Obtaining the binaries: the same exports as @kubescaffold/envtest/setup.
export * from './setup.js';
// Test objects from a project's config/samples.
export { createSample, readSample } from './samples.js';
export { freePort } from './controlplane/ports.js';
export { checkAPIServerFlags, RESERVED_APISERVER_FLAGS } from './controlplane/apiserver-flags.js';
export { checkKubeconfigTarget, writeKubeconfigFile } from './controlplane/kubeconfig.js';
export type { CustomResourceDefinition } from './controlplane/crds.js';
export {
  WebhookInstaller,
  readWebhookConfigurations,
  type WebhookInstallOptions,
  type InstalledWebhookOptions,
  type WebhookConfiguration,
} from './controlplane/webhooks.js';
