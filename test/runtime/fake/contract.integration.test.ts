import { afterAll, beforeAll } from 'vitest';
import { TestEnvironment } from '../../../src/envtest/index.js';
import { newClient, type RestClient } from '../../../src/runtime/rest/index.js';
import { describeClientContract, WIDGET_CRD } from './contract.js';

// The contract against a real API server: the evidence for what the fake client claims.
let env: TestEnvironment;
let api: RestClient;

beforeAll(async () => {
  env = await TestEnvironment.start({ crds: [WIDGET_CRD] });
  api = newClient(env.kubeConfig);
});

afterAll(async () => {
  api?.close();
  await env?.stop();
});

describeClientContract('a real API server', () => api);
