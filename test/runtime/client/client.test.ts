// The Client interface is declared in client/, above rest, so RestClient cannot say `implements Client`; these
// assignments are where the compiler checks that it is one (tsconfig.test.json type-checks the tests).
import { afterEach, expect, it } from 'vitest';
import type { Client, SubResourceWriter } from '../../../src/runtime/client/index.js';
import { FakeClient } from '../../../src/runtime/fake/index.js';
import { newClient, type RestClient } from '../../../src/runtime/rest/index.js';
import { unreachableKubeConfig } from '../kubeconfig.js';

const open: RestClient[] = [];
afterEach(() => {
  for (const c of open.splice(0)) c.transport.close();
});

const METHODS = ['get', 'list', 'create', 'update', 'patch', 'delete', 'status'] as const;

it('takes the uncached RestClient as a Client, its status() as a SubResourceWriter', () => {
  const rest = newClient(unreachableKubeConfig());
  open.push(rest);
  const client: Client = rest;
  const status: SubResourceWriter = client.status();
  for (const m of METHODS) expect(typeof client[m], m).toBe('function');
  expect([typeof status.update, typeof status.patch]).toEqual(['function', 'function']);
});

it('takes the FakeClient as a Client', () => {
  const client: Client = new FakeClient();
  for (const m of METHODS) expect(typeof client[m], m).toBe('function');
});
