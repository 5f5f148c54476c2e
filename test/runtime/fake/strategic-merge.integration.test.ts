import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestEnvironment } from '../../../src/envtest/index.js';
import {
  ApiError,
  HttpTransport,
  Namespaces,
  newClient,
  newScheme,
  type KubeObject,
  type RestClient,
} from '../../../src/runtime/rest/index.js';
import type { Client } from '../../../src/runtime/client/index.js';
import { FakeClient } from '../../../src/runtime/fake/index.js';
import { PATCH_KINDS, PATCH_TYPES, OBJECT_META } from '../../../src/runtime/fake/patch-strategies.js';
import { STRATEGIC_CASES, STRATEGIC_ERROR_CASES, type StrategicCase } from './strategic-cases.js';
import { WIDGET_CRD, Widgets } from './contract.js';

// The fake's strategic merge against a real API server's: the same patches, the same answers.
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

// What differs between any two servers: identity, versions, times and the write log.
function normalise(o: KubeObject): KubeObject {
  const {
    resourceVersion: _rv,
    uid: _uid,
    creationTimestamp: _ct,
    managedFields: _mf,
    generation: _g,
    ...meta
  } = o.metadata ?? {};
  return { ...o, metadata: meta };
}

type Outcome = { object: KubeObject } | { error: { code: number; reason: string; message: string } };

async function outcome(client: Client, c: StrategicCase, ns: string, patch: unknown): Promise<Outcome> {
  const key = { namespace: ns, name: c.object.metadata!.name! };
  const writer = c.status ? client.status() : client;
  try {
    return { object: normalise(await writer.patch(c.resource, key, patch, { type: 'strategic' })) };
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return { error: { code: err.code, reason: err.reason ?? '', message: err.status.message ?? '' } };
  }
}

let n = 0;
// The case's object on the server, and a fake client that starts with the server's copy (defaults and all).
async function start(c: StrategicCase): Promise<{ ns: string; fake: FakeClient }> {
  const ns = `smp-${process.pid}-${++n}`;
  await api.create(Namespaces, { metadata: { name: ns } });
  const created = await api.create(c.resource, { ...c.object, metadata: { ...c.object.metadata, namespace: ns } });
  const fake = new FakeClient({ objects: [created], scheme: newScheme().add(Widgets), statusSubresource: [Widgets] });
  return { ns, fake };
}

describe('strategic merge patch: the fake client answers as the API server', () => {
  for (const c of STRATEGIC_CASES)
    it(c.name, async () => {
      const { ns, fake } = await start(c);
      for (const patch of c.patches) {
        const real = await outcome(api, c, ns, patch);
        expect('object' in real, JSON.stringify(real)).toBe(true);
        expect(await outcome(fake, c, ns, patch)).toEqual(real);
      }
    });

  for (const c of STRATEGIC_ERROR_CASES)
    it(`refuses ${c.name} as the server does`, async () => {
      const { ns, fake } = await start(c);
      const real = await outcome(api, c, ns, c.patches[0]);
      expect('error' in real, JSON.stringify(real)).toBe(true);
      expect(await outcome(fake, c, ns, c.patches[0])).toEqual(real);
    });
});

type Schema = {
  $ref?: string;
  allOf?: Schema[];
  items?: Schema;
  properties?: Record<string, Schema>;
  'x-kubernetes-patch-strategy'?: string;
  'x-kubernetes-patch-merge-key'?: string;
  'x-kubernetes-group-version-kind'?: { group: string; version: string; kind: string }[];
};

// "spec.template.spec.containers=merge:name" for every field with a strategy below a schema; `seen` holds the
// schemas on the way, so that a recursive type ends.
function servedPaths(
  schemas: Record<string, Schema>,
  s: Schema,
  path: string,
  out: Set<string>,
  seen: ReadonlySet<string> = new Set(),
): void {
  if (s.$ref) {
    const name = s.$ref.replace('#/components/schemas/', '');
    if (seen.has(name) || !schemas[name]) return;
    return servedPaths(schemas, schemas[name], path, out, new Set([...seen, name]));
  }
  for (const a of s.allOf ?? []) servedPaths(schemas, a, path, out, seen);
  if (s.items) servedPaths(schemas, s.items, path, out, seen);
  for (const [k, v] of Object.entries(s.properties ?? {})) {
    const p = path ? `${path}.${k}` : k;
    if (v['x-kubernetes-patch-strategy'])
      out.add(`${p}=${v['x-kubernetes-patch-strategy']}:${v['x-kubernetes-patch-merge-key'] ?? ''}`);
    servedPaths(schemas, v, p, out, seen);
  }
}

// The same paths, from the generated table (a kind it does not list has only metadata's).
function tablePaths(type: string, path: string, out: Set<string>): void {
  for (const [k, [strategy, key, child]] of Object.entries(PATCH_TYPES[type] ?? {})) {
    const p = path ? `${path}.${k}` : k;
    if (strategy) out.add(`${p}=${strategy}:${key}`);
    if (child) tablePaths(child, p, out);
  }
}

describe("the generated patch strategies match the server's OpenAPI v3 documents", () => {
  it('has every built-in kind the server serves with the patch strategies and merge keys the server publishes', async () => {
    const http = new HttpTransport(env.kubeConfig);
    const index = await http.requestJson<{ paths: Record<string, unknown> }>({ method: 'GET', path: '/openapi/v3' });
    const builtin = Object.keys(index.paths).filter(
      (p) => p === 'api/v1' || /^apis\/([a-z]+|[a-z.]+\.k8s\.io)\/v/.test(p),
    );
    expect(builtin).toContain('apis/apps/v1');
    let kinds = 0;
    for (const gv of builtin) {
      const doc = await http.requestJson<{ components: { schemas: Record<string, Schema> } }>({
        method: 'GET',
        path: `/openapi/v3/${gv}`,
      });
      const schemas = doc.components.schemas;
      for (const [name, schema] of Object.entries(schemas)) {
        const gvk = schema['x-kubernetes-group-version-kind']?.[0];
        if (!gvk || name.endsWith('List') || !name.startsWith('io.k8s.api.') || !schema.properties?.metadata) continue;
        const apiVersion = gvk.group ? `${gvk.group}/${gvk.version}` : gvk.version;
        if ((gv === 'api/v1' ? 'v1' : gv.replace(/^apis\//, '')) !== apiVersion) continue;
        const served = new Set<string>();
        servedPaths(schemas, schema, '', served);
        const table = new Set<string>();
        const type = PATCH_KINDS[`${apiVersion}/${gvk.kind}`];
        if (type) tablePaths(type, '', table);
        else tablePaths(OBJECT_META, 'metadata', table);
        expect([...table].sort(), `${apiVersion} ${gvk.kind}`).toEqual([...served].sort());
        kinds++;
      }
    }
    expect(kinds).toBeGreaterThan(40);
  });
});
