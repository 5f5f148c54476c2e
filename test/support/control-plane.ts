/**
 * One envtest control plane shared by the tests of a file: started before them, stopped after, with an admin client
 * and fresh namespaces on it.
 */
import { afterAll, beforeAll } from 'vitest';
import { TestEnvironment, type TestEnvironmentOptions } from '../../src/envtest/index.js';
import { Namespaces, newClient, type RestClient } from '../../src/runtime/rest/index.js';

/** The file's control plane; `env` and `api` are there once its beforeAll has run. */
export interface SharedControlPlane {
  readonly env: TestEnvironment;
  readonly api: RestClient;
  /** A new namespace named `<prefix>-<pid>-<n>`, with these labels. */
  namespace(prefix: string, labels?: Record<string, string>): Promise<string>;
}

/** Registers the file's beforeAll and afterAll that start and stop one control plane. */
export function useControlPlane(options: TestEnvironmentOptions = {}): SharedControlPlane {
  let env: TestEnvironment | undefined;
  let api: RestClient | undefined;
  let seq = 0;
  beforeAll(async () => {
    env = await TestEnvironment.start(options);
    api = newClient(env.kubeConfig);
  });
  afterAll(async () => {
    api?.close();
    await env?.stop();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new TypeError('the control plane is used before its beforeAll has started it');
    return value;
  };
  return {
    get env() {
      return started(env);
    },
    get api() {
      return started(api);
    },
    async namespace(prefix, labels) {
      const name = `${prefix}-${process.pid}-${++seq}`;
      await started(api).create(Namespaces, { metadata: { name, ...(labels ? { labels } : {}) } });
      return name;
    },
  };
}
