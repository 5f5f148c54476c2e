/**
 * The golden CRDs on a real kube-apiserver: each is accepted, objects that satisfy the schema are stored with
 * defaults applied, and objects that break a validation are rejected with the field error that validation makes.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestEnvironment } from '../../src/envtest/index.js';
import {
  ApiError,
  defineResource,
  Namespaces,
  newClient,
  type KubeObject,
  type RestClient,
} from '../../src/runtime/rest/index.js';

const fixtures = join(import.meta.dirname, '../fixtures/markers');
const crdDirs = readdirSync(fixtures)
  .map((d) => join(fixtures, d, 'expected/config/crd/bases'))
  .filter((d) => {
    try {
      return readdirSync(d).length > 0;
    } catch {
      return false;
    }
  });

interface Obj extends KubeObject {
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}

const CronJobs = defineResource<Obj>({
  group: 'testdata.kubescaffold.io',
  version: 'v1',
  kind: 'CronJob',
  plural: 'cronjobs',
  namespaced: true,
});
const CronJobsV2 = defineResource<Obj>({
  group: 'testdata.kubescaffold.io',
  version: 'v2',
  kind: 'CronJob',
  plural: 'cronjobs',
  namespaced: true,
});
const Captains = defineResource<Obj>({
  group: 'crew.example.com',
  version: 'v1',
  kind: 'Captain',
  plural: 'captains',
  namespaced: true,
});
const Admirals = defineResource<Obj>({
  group: 'crew.example.com',
  version: 'v1',
  kind: 'Admiral',
  plural: 'admirals',
  namespaced: false,
});
const Apps = defineResource<Obj>({
  group: 'apps.example.com',
  version: 'v1',
  kind: 'App',
  plural: 'apps',
  namespaced: true,
});
const Gadgets = defineResource<Obj>({
  group: 'more.example.com',
  version: 'v1',
  kind: 'Gadget',
  plural: 'gadgetry',
  namespaced: false,
});
const Doohickeys = defineResource<Obj>({
  group: 'more.example.com',
  version: 'v2',
  kind: 'Doohickey',
  plural: 'doohickeys',
  namespaced: true,
});
const Probes = defineResource<Obj>({
  group: 'opts.example.com',
  version: 'v1',
  kind: 'Probe',
  plural: 'probes',
  namespaced: true,
});
const Sailors = defineResource<Obj>({
  group: 'crew.fleet.io',
  version: 'v1',
  kind: 'Sailor',
  plural: 'sailors',
  namespaced: true,
});
const Notes = defineResource<Obj>({
  group: 'docs.example.com',
  version: 'v1',
  kind: 'Note',
  plural: 'notes',
  namespaced: true,
});
const Widgets = defineResource<Obj>({
  group: 'types.example.com',
  version: 'v1alpha1',
  kind: 'Widget',
  plural: 'widgetz',
  namespaced: false,
});

let env: TestEnvironment;
let client: RestClient;
const ns = 'golden';
let seq = 0;

beforeAll(async () => {
  env = await TestEnvironment.start({ crdDirectoryPaths: crdDirs, errorIfCRDPathMissing: true });
  client = newClient(env.kubeConfig);
  await client.create(Namespaces, { metadata: { name: ns } });
});
afterAll(async () => {
  client?.close();
  await env?.stop();
});

const validCronJobSpec = (): Record<string, unknown> => ({
  schedule: '*/5 * * * *',
  replicas: 2,
  owner: 'team-a',
  image: 'busybox',
});

async function rejection(p: Promise<unknown>): Promise<string> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, 'the API server accepted an invalid object').toBeInstanceOf(ApiError);
  expect((err as ApiError).code).toBe(422);
  return (err as ApiError).message;
}

const createCronJob = (spec: Record<string, unknown>): Promise<Obj> =>
  client.create(CronJobs, {
    apiVersion: CronJobs.apiVersion,
    kind: 'CronJob',
    metadata: { name: `cj-${++seq}`, namespace: ns },
    spec,
  });

describe('golden CRDs on a real API server', () => {
  it('stores a valid CronJob with the defaults the markers declare', async () => {
    const created = await createCronJob({ ...validCronJobSpec(), ports: [{ name: 'http', number: 80 }] });
    expect(created.spec).toMatchObject({
      concurrencyPolicy: 'Allow',
      successfulJobsHistoryLimit: 3,
      defaultedList: ['a', 'b'],
      defaultedEmpty: [],
      jsonDefault: 'json',
      objectDefault: { image: 'busybox', replicas: 1 },
      ports: [{ name: 'http', number: 80, protocol: 'TCP' }],
    });
  });

  it.each([
    ['an enum value', { concurrencyPolicy: 'Sometimes' }, /spec.concurrencyPolicy: Unsupported value: "Sometimes"/],
    ['multipleOf', { replicas: 3 }, /spec.replicas: Invalid value: 3: .*multiple of 2/],
    [
      'minimum',
      { startingDeadlineSeconds: -1 },
      /spec.startingDeadlineSeconds: Invalid value: -1: .*greater than or equal to 0/,
    ],
    [
      'exclusive maximum',
      { failedJobsHistoryLimit: 10 },
      /spec.failedJobsHistoryLimit: Invalid value: 10: .*less than 10/,
    ],
    ['minItems', { tags: [] }, /spec.tags: Invalid value: .*at least 1 items/],
    ['listType=set', { tags: ['a', 'a'] }, /spec.tags\[1\]: Duplicate value: "a"/],
    ['items:Pattern', { tags: ['ABC'] }, /spec.tags\[0\]: Invalid value: "ABC": spec.tags\[0\] in body should match/],
    ['items:MaxLength', { tags: ['a'.repeat(65)] }, /spec.tags\[0\]: Too long/],
    ['pattern', { name: 'Bad_Name' }, /spec.name: Invalid value: "Bad_Name": spec.name in body should match/],
    [
      'a type-level MinLength',
      { nickname: 'abc' },
      /spec.nickname: Invalid value: "abc": spec.nickname in body should be at least 4 chars long/,
    ],
    [
      'a field MaxLength on top of the type',
      { comment: 'elevenchars' },
      /spec.comment: Too long: may not be (longer|more) than 10/,
    ],
    [
      'a listMapKey duplicate',
      {
        ports: [
          { name: 'a', number: 1 },
          { name: 'a', number: 2 },
        ],
      },
      /spec.ports\[1\]: Duplicate value/,
    ],
    ['a nested maximum', { ports: [{ name: 'a', number: 70000 }] }, /spec.ports\[0\].number: Invalid value: 70000/],
    [
      'ExactlyOneOf',
      { template: { image: 'x', parallelism: 1 } },
      /exactly one of the fields in \[image template\] must be set/,
    ],
    [
      'a type-level XValidation with fieldPath and reason',
      { suspend: true },
      /spec.startingDeadlineSeconds: Forbidden: a suspended job needs a starting deadline/,
    ],
    ['messageExpression', { priority: -1 }, /priority must be positive/],
    [
      'an extends-inherited minimum',
      { image: undefined, template: { image: 'x', parallelism: 0 } },
      /spec.template.parallelism: Invalid value: 0/,
    ],
    ['the map type of labels', { labels: { a: 1 } }, /spec.labels.a: Invalid value: "integer"/],
    ['the Quantity pattern', { memory: '12 parsecs' }, /spec.memory: Invalid value: "12 parsecs"/],
  ])('rejects a CronJob that breaks %s', async (_what, patch, message) => {
    expect(await rejection(createCronJob({ ...validCronJobSpec(), ...patch }))).toMatch(message);
  });

  it('requires required fields', async () => {
    const spec = validCronJobSpec();
    delete spec.schedule;
    expect(await rejection(createCronJob(spec))).toMatch(/spec.schedule: Required value/);
  });

  it('keeps immutable fields immutable', async () => {
    const created = await createCronJob({ ...validCronJobSpec(), name: 'first' });
    const changed = { ...created, spec: { ...created.spec, owner: 'team-b' } };
    expect(await rejection(client.update(CronJobs, changed))).toMatch(
      /spec.owner: Invalid value: "team-b": field is immutable/,
    );
    const renamed = { ...created, spec: { ...created.spec, name: 'second' } };
    expect(await rejection(client.update(CronJobs, renamed))).toMatch(/field is immutable/);
    const unset = { ...created, spec: { ...created.spec, name: undefined } };
    expect(await rejection(client.update(CronJobs, unset))).toMatch(/field name is immutable once set/);
  });

  it('checks transition rules with optionalOldSelf', async () => {
    const created = await createCronJob({ ...validCronJobSpec(), priority: 5 });
    const up = { ...created, spec: { ...created.spec, priority: 6 } };
    expect(await rejection(client.update(CronJobs, up))).toMatch(/priority can only go down/);
    await client.update(CronJobs, { ...created, spec: { ...created.spec, priority: 4 } });
  });

  it('serves the status and scale subresources and hides the unserved version', async () => {
    const created = await createCronJob(validCronJobSpec());
    const withStatus = await client
      .status()
      .update(CronJobs, { ...created, status: { replicas: 2, selector: 'app=x', phase: 'Running' } });
    expect(withStatus.status).toMatchObject({ replicas: 2, phase: 'Running' });
    const err = await client.get(CronJobsV2, { namespace: ns, name: created.metadata!.name! }).catch((e: unknown) => e);
    expect((err as ApiError).code).toBe(404);
  });

  it('accepts the scaffolded kinds, namespaced and cluster-scoped', async () => {
    const captain = await client.create(Captains, {
      apiVersion: Captains.apiVersion,
      kind: 'Captain',
      metadata: { name: 'c1', namespace: ns },
      spec: { foo: 'bar' },
    });
    expect(captain.spec).toEqual({ foo: 'bar' });
    const status = await client.status().update(Captains, {
      ...captain,
      status: {
        conditions: [
          { type: 'Ready', status: 'True', reason: 'Done', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' },
        ],
      },
    });
    expect(status.status?.conditions).toHaveLength(1);
    const bad = {
      ...status,
      status: {
        conditions: [
          { type: 'Ready', status: 'Maybe', reason: 'Done', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' },
        ],
      },
    };
    expect(await rejection(client.status().update(Captains, bad))).toMatch(
      /status.conditions\[0\].status: Unsupported value: "Maybe"/,
    );
    expect(
      await rejection(
        client.create(Captains, {
          apiVersion: Captains.apiVersion,
          kind: 'Captain',
          metadata: { name: 'c2', namespace: ns },
        }),
      ),
    ).toMatch(/spec: Required value/);
    const admiral = await client.create(Admirals, {
      apiVersion: Admirals.apiVersion,
      kind: 'Admiral',
      metadata: { name: 'a1' },
      spec: {},
    });
    expect(admiral.metadata?.namespace).toBeUndefined();
  });

  it('accepts the TypeScript type mapping: literal unions, nullable, int-or-string, maps, irregular plural', async () => {
    const w = await client.create(Widgets, {
      apiVersion: Widgets.apiVersion,
      kind: 'Widget',
      metadata: { name: 'w1' },
      spec: {
        id: 'x',
        mustHave: 'y',
        size: 'small',
        limit: null,
        port: 'http',
        target: 8080,
        counts: { a: 1 },
        position: { x: 1, y: 2 },
      },
    });
    expect(w.spec).toMatchObject({ size: 'small', limit: null, port: 'http' });
    const bad = rejection(
      client.create(Widgets, {
        apiVersion: Widgets.apiVersion,
        kind: 'Widget',
        metadata: { name: 'w2' },
        spec: { id: 'x', mustHave: 'y', size: 'huge', level: 3 },
      }),
    );
    const message = await bad;
    expect(message).toMatch(/spec.size: Unsupported value: "huge"/);
    expect(message).toMatch(/spec.level: Unsupported value: 3/);
    expect(
      await rejection(
        client.create(Widgets, {
          apiVersion: Widgets.apiVersion,
          kind: 'Widget',
          metadata: { name: 'w3' },
          spec: { mustHave: 'y' },
        }),
      ),
    ).toMatch(/spec.id: Required value/);
  });

  it('validates Kubernetes built-in types used as fields (PodTemplateSpec, ServicePort, ...)', async () => {
    const app = await client.create(Apps, {
      apiVersion: Apps.apiVersion,
      kind: 'App',
      metadata: { name: 'app1', namespace: ns },
      spec: {
        template: {
          metadata: { labels: { app: 'x' } },
          spec: { containers: [{ name: 'main', image: 'busybox', ports: [{ containerPort: 80 }] }] },
        },
        ports: [{ port: 80, targetPort: 'http' }],
        resources: { limits: { memory: '64Mi' } },
      },
    });
    expect(app.spec).toMatchObject({ replicas: 1 });
    const noImage = {
      apiVersion: Apps.apiVersion,
      kind: 'App',
      metadata: { name: 'app2', namespace: ns },
      spec: { template: { spec: { containers: [{ image: 'x' }] } } },
    };
    expect(await rejection(client.create(Apps, noImage))).toMatch(
      /spec.template.spec.containers\[0\].name: Required value/,
    );
    const badPort = {
      apiVersion: Apps.apiVersion,
      kind: 'App',
      metadata: { name: 'app3', namespace: ns },
      spec: { template: {}, ports: [{ port: 80 }, { port: 80 }] },
    };
    expect(await rejection(client.create(Apps, badPort))).toMatch(/spec.ports\[1\]: Duplicate value/);
    const badQuantity = {
      apiVersion: Apps.apiVersion,
      kind: 'App',
      metadata: { name: 'app4', namespace: ns },
      spec: { template: {}, resources: { limits: { memory: 'lots' } } },
    };
    expect(await rejection(client.create(Apps, badQuantity))).toMatch(
      /spec.resources.limits.memory: Invalid value: "lots"/,
    );
  });

  it('applies the remaining markers: k8s:enum, OneOf, items:, object sizes, type-level list limits, := defaults', async () => {
    const make = (name: string, spec: Record<string, unknown>): Promise<Obj> =>
      client.create(Gadgets, { apiVersion: Gadgets.apiVersion, kind: 'Gadget', metadata: { name }, spec });
    const g = await make('g1', {
      color: 'blue',
      colors: ['red'],
      settings: { verbose: true },
      choice: { left: 'x' },
      weights: [5, -10],
      steps: ['a'],
    });
    expect(g.spec).toMatchObject({ shortName: 'abc', color: 'blue' });
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ color: 'purple' }, /spec.color: Unsupported value: "purple"/],
      [{ colors: ['green'] }, /spec.colors\[0\]: Unsupported value: "green"/],
      [{ settings: {} }, /spec.settings: Invalid value: .*at least 1 properties/],
      [{ choice: { left: 'a', right: 'b' } }, /at most one of the fields in \[left right\] may be set/],
      [{ choice: {} }, /at least one of the fields in \[left right middle\] must be set/],
      [{ weights: [3] }, /spec.weights\[0\]: Invalid value: 3: .*multiple of 5/],
      [{ weights: [-15] }, /spec.weights\[0\]: Invalid value: -15: .*greater than or equal to -10/],
      [{ steps: ['a', 'b', 'c', 'd'] }, /spec.steps: Too many: 4: must have at most 3 items/],
      [{ shortName: 'muchtoolong' }, /spec.shortName: Too long/],
    ];
    let i = 0;
    for (const [spec, message] of cases) expect(await rejection(make(`bad${++i}`, spec))).toMatch(message);
    const d = await client.create(Doohickeys, {
      apiVersion: Doohickeys.apiVersion,
      kind: 'Doohickey',
      metadata: { name: 'd1', namespace: ns },
      spec: { name: 'n', owner: 'o' },
    });
    expect(d.spec).toEqual({ name: 'n', owner: 'o' });
    expect(
      await rejection(
        client.create(Doohickeys, {
          apiVersion: Doohickeys.apiVersion,
          kind: 'Doohickey',
          metadata: { name: 'd2', namespace: ns },
          spec: { name: 'n' },
        }),
      ),
    ).toMatch(/spec.owner: Required value/);
  });

  it('validates floats (--allow-dangerous-types) and types from other folders (multigroup)', async () => {
    await client.create(Probes, {
      apiVersion: Probes.apiVersion,
      kind: 'Probe',
      metadata: { name: 'p1', namespace: ns },
      spec: { ratio: 0.25, factors: [1.5] },
    });
    expect(
      await rejection(
        client.create(Probes, {
          apiVersion: Probes.apiVersion,
          kind: 'Probe',
          metadata: { name: 'p2', namespace: ns },
          spec: { ratio: 1.5 },
        }),
      ),
    ).toMatch(/spec.ratio: Invalid value: 1.5: .*less than or equal to 1/);
    await client.create(Sailors, {
      apiVersion: Sailors.apiVersion,
      kind: 'Sailor',
      metadata: { name: 's1', namespace: ns },
      spec: { rank: 'captain' },
    });
    expect(
      await rejection(
        client.create(Sailors, {
          apiVersion: Sailors.apiVersion,
          kind: 'Sailor',
          metadata: { name: 's2', namespace: ns },
          spec: { rank: 'admiral' },
        }),
      ),
    ).toMatch(/spec.rank: Unsupported value: "admiral"/);
  });

  it('accepts the CRD whose descriptions need quoting and escapes (docs)', async () => {
    const note = await client.create(Notes, {
      apiVersion: Notes.apiVersion,
      kind: 'Note',
      metadata: { name: 'n1', namespace: ns },
      spec: { unicode: 'café 🚀', code: 'a: b' },
    });
    expect(note.spec).toEqual({ unicode: 'café 🚀', code: 'a: b' });
    expect(
      await rejection(
        client.create(Notes, {
          apiVersion: Notes.apiVersion,
          kind: 'Note',
          metadata: { name: 'n2', namespace: ns },
          spec: { code: 1 },
        }),
      ),
    ).toMatch(/spec.code: Invalid value: "integer": spec.code in body must be of type string/);
  });
});
