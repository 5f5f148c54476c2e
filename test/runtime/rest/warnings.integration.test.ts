// The API server's Warning headers reach the client's warning handler, and by default the log, once per text.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestEnvironment } from '../../../src/envtest/index.js';
import { configureLog } from '../../../src/runtime/log/index.js';
import { testLogSink } from '../../support/log-sink.js';
import {
  Namespaces,
  defineResource,
  newClient,
  noWarnings,
  type KubeObject,
  type Warning,
} from '../../../src/runtime/rest/index.js';
import { testCRD } from '../../support/crd.js';

interface Gadget extends KubeObject {
  spec?: { size?: number };
}
const Gadgets = defineResource<Gadget>({
  group: 'warn.kubescaffold.dev',
  version: 'v1',
  kind: 'Gadget',
  plural: 'gadgets',
  namespaced: true,
});

let env: TestEnvironment;
const ns = 'warnings-it';

beforeAll(async () => {
  env = await TestEnvironment.start({
    crds: [
      testCRD({
        group: 'warn.kubescaffold.dev',
        kind: 'Gadget',
        versions: [{ name: 'v1', spec: { size: { type: 'integer' } } }],
      }),
    ],
  });
  const c = newClient(env.kubeConfig);
  await c.create(Namespaces, { metadata: { name: ns } });
  c.close();
});
afterAll(async () => {
  await env?.stop();
});

// An object with a field the schema does not know: fieldValidation=Warn keeps the object and warns.
const withUnknownField = (name: string): Gadget =>
  ({ metadata: { name, namespace: ns }, spec: { size: 1, colour: 'red' } }) as Gadget;

describe('API warnings', () => {
  it('hands the warning of a fieldValidation=Warn write with an unknown field to the handler', async () => {
    const seen: Warning[] = [];
    const client = newClient(env.kubeConfig, { warningHandler: (w) => seen.push(w) });
    try {
      await client.create(Gadgets, withUnknownField('handled'), { fieldValidation: 'Warn' });
      expect(seen).toEqual([{ code: 299, agent: '-', text: 'unknown field "spec.colour"' }]);
    } finally {
      client.close();
    }
  });

  it('logs each distinct warning text once by default, and nothing with noWarnings', async () => {
    const lines: string[] = [];
    configureLog({ sink: (line) => lines.push(line) });
    const client = newClient(env.kubeConfig);
    const silent = newClient(env.kubeConfig, { warningHandler: noWarnings });
    try {
      await client.create(Gadgets, withUnknownField('logged-1'), { fieldValidation: 'Warn' });
      await client.create(Gadgets, withUnknownField('logged-2'), { fieldValidation: 'Warn' });
      await silent.create(Gadgets, withUnknownField('silent'), { fieldValidation: 'Warn' });
      const warnings = lines
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .filter((l) => l.logger === 'KubeAPIWarningLogger');
      expect(warnings.map((l) => [l.level, l.msg])).toEqual([['info', 'unknown field "spec.colour"']]);
    } finally {
      configureLog({ sink: testLogSink });
      client.close();
      silent.close();
    }
  });
});
