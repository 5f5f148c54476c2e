/**
 * One control plane for a whole test run (kubebuilder's suite_test.go BeforeSuite): a vitest globalSetup starts it
 * with startSharedTestEnvironment and hands its connection to the test files (vitest's provide/inject); each file
 * reads it with sharedTestEnvironment and works in namespaces of its own (createTestNamespace).
 */
import type { Client } from '@kubescaffold/runtime';
import type { KubeConfig } from '@kubescaffold/runtime/rest';
import { Namespaces } from '@kubescaffold/runtime/rest';
import { EnvtestError } from '../errors.js';
import { TestEnvironment, type TestEnvironmentOptions } from './environment.js';

/**
 * How test files reach a control plane started for the whole run: plain data, so that vitest's `provide` can pass it
 * to the test workers.
 */
export interface SharedTestEnvironment {
  /** The admin user's cluster configuration, for `newClient(shared.kubeConfig)`. */
  kubeConfig: KubeConfig;
  /** The same as a kubeconfig file body, with embedded certificates (e.g. for kubectl). */
  kubeconfigYaml: string;
  /** The Kubernetes version of the API server, e.g. "1.37.1". */
  kubernetesVersion: string;
}

/**
 * Starts the control plane of a test run, for a vitest globalSetup: `provide` receives its connection (to pass on with vitest's
 * `project.provide`; the scaffolded setup provides it as `envtest`), and the returned function stops it, which is what
 * a globalSetup returns as its teardown.
 *
 * A project's `test/envtest.setup.ts`, named by `globalSetup` in vitest.config.ts (the scaffold writes it; not an
 * `@example`, which runs on its own, since it runs only inside vitest):
 * ```ts
 * import type { TestProject } from 'vitest/node';
 * import { startSharedTestEnvironment, type SharedTestEnvironment } from '@kubescaffold/envtest';
 *
 * declare module 'vitest' {
 *   export interface ProvidedContext {
 *     envtest: SharedTestEnvironment;
 *   }
 * }
 *
 * export default function setup(project: TestProject): Promise<() => Promise<void>> {
 *   return startSharedTestEnvironment({ crdDirectoryPaths: ['config/crd/bases'] }, (shared) => project.provide('envtest', shared));
 * }
 * ```
 */
export async function startSharedTestEnvironment(
  options: TestEnvironmentOptions,
  provide: (shared: SharedTestEnvironment) => void,
): Promise<() => Promise<void>> {
  if (options.webhookInstallOptions) {
    // Webhook configurations are cluster-wide and a CRD has one conversion webhook: two test files serving them from
    // their own processes would replace each other's, and every file's objects would go through them.
    throw new EnvtestError(
      'a shared test environment installs no webhooks: start a TestEnvironment of its own with webhookInstallOptions in the test that serves them',
    );
  }
  const env = await TestEnvironment.start(options);
  try {
    provide({
      kubeConfig: env.kubeConfig,
      kubeconfigYaml: env.kubeconfigYaml(),
      kubernetesVersion: env.binaries.version,
    });
  } catch (err) {
    await env.stop();
    throw err;
  }
  return () => env.stop();
}

/**
 * The connection a globalSetup provided, checked: `sharedTestEnvironment(inject('envtest'))`. Without one (a project
 * whose vitest.config.ts names no globalSetup that starts it), throws an EnvtestError that says what to add.
 */
export function sharedTestEnvironment(provided: SharedTestEnvironment | undefined): SharedTestEnvironment {
  if (provided?.kubeConfig?.server === undefined) {
    throw new EnvtestError(
      "no shared test environment was provided to this test: vitest.config.ts's unit project needs " +
        "globalSetup: ['test/envtest.setup.ts'], a file that calls startSharedTestEnvironment " +
        '(`scaffold create api` writes both; see the testing guide), or start a TestEnvironment in the test',
    );
  }
  return provided;
}

/**
 * Creates a namespace named `<prefix>-<random suffix>` (`prefix`: a DNS label, such as the Kind in lowercase) and returns its name: where a test file's objects go on a
 * control plane that other files use at the same time. envtest runs no namespace controller, so a deleted namespace
 * would stay Terminating; the namespaces go with the control plane at the end of the run.
 */
export async function createTestNamespace(client: Pick<Client, 'create'>, prefix: string): Promise<string> {
  const created = await client.create(Namespaces, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { generateName: `${prefix.toLowerCase().slice(0, 50)}-` },
  });
  const name = created.metadata?.name;
  if (name === undefined) throw new EnvtestError(`the API server created a namespace for ${prefix} without a name`);
  return name;
}
