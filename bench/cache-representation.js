#!/usr/bin/env node
// How the cache should keep an object: the candidates of a "compact cache", measured on the same objects. No control
// plane: objects shaped as the API server serves them (metadata with uid, resourceVersion, labels, annotations and
// one managedFields entry) are made here, JSON-encoded, and each candidate keeps OBJECTS (default 10,000) of them:
//   object graph  what the cache keeps today: JSON.parse, then the informer's default transform (equal short strings
//                 and managedFields field sets shared); a read deep-copies (the runtime's deepCopy)
//   JSON text     the transformed object's JSON as one string; a read is JSON.parse
//   UTF-8 bytes   the same in a Buffer; a read is JSON.parse of its decoding
// For each: live heap plus off-heap bytes per object (after full GCs), the time to take an object in (parse,
// transform, keep), and a read's cost: a get of one object and a list of 1,000, as the cached client hands them out
// (fresh copies). Best of ROUNDS (default 5) timings. Kinds: ConfigMaps of 256 B, 1 KiB and 8 KiB of data, a Deployment,
// a Thing (a custom kind with a ~1 KiB spec).
// Usage: npm run build && node --expose-gc bench/cache-representation.js       KINDS=configmap-1k,thing OBJECTS=5000
import { configData, importRuntime, printTable, thing } from './runtime-lib.js';

if (typeof globalThis.gc !== 'function') throw new Error('run with node --expose-gc');
const OBJECTS = Number(process.env.OBJECTS ?? 10_000);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const rt = await importRuntime('cache', 'json');

const uid = (i) => `${(0x10000000 + i).toString(16)}-4e1a-4b7c-9d2e-${(0x100000000000 + i * 7919).toString(16)}`;
function served(i, body, manager = 'kubectl-client-side-apply') {
  const fields = {};
  for (const k of Object.keys(body.data ?? body.spec ?? {})) fields[`f:${k}`] = {};
  return {
    ...body,
    metadata: {
      ...body.metadata,
      uid: uid(i),
      resourceVersion: String(100_000 + i),
      creationTimestamp: `2026-12-07T${String(10 + (i % 12)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}:00Z`,
      annotations: { 'reloader.stakater.com/auto': 'true', 'team.example.com/owner': `team-${i % 9}` },
      managedFields: [
        {
          manager,
          operation: 'Update',
          apiVersion: body.apiVersion,
          time: '2026-12-07T10:00:00Z',
          fieldsType: 'FieldsV1',
          fieldsV1: {
            'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
            [body.data ? 'f:data' : 'f:spec']: fields,
          },
        },
      ],
    },
  };
}
const configMap = (size) => (i) =>
  served(i, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `cm-${i}`, namespace: 'bench', labels: { app: `app-${i % 50}` } },
    data: configData(i, size),
  });
const deployment = (i) =>
  served(i, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: `deploy-${i}`, namespace: 'bench', labels: { app: `app-${i % 50}` }, generation: 1 },
    spec: {
      replicas: 1 + (i % 3),
      selector: { matchLabels: { app: `app-${i}` } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
      template: {
        metadata: { labels: { app: `app-${i}` } },
        spec: {
          containers: [
            {
              name: 'server',
              image: `registry.example.com/team-${i % 9}/service:v1.${i % 40}`,
              args: ['--config=/etc/app/config.yaml', `--shard=${i % 32}`],
              ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
              env: [{ name: 'APP_INSTANCE', value: `instance-${i}` }],
              resources: { requests: { cpu: '100m', memory: '128Mi' } },
              terminationMessagePath: '/dev/termination-log',
              terminationMessagePolicy: 'File',
              imagePullPolicy: 'IfNotPresent',
            },
          ],
          restartPolicy: 'Always',
          terminationGracePeriodSeconds: 30,
          dnsPolicy: 'ClusterFirst',
          securityContext: {},
          schedulerName: 'default-scheduler',
        },
      },
    },
    status: {},
  });
const KINDS = {
  'configmap-256': configMap(256),
  'configmap-1k': configMap(1024),
  'configmap-8k': configMap(8192),
  deployment,
  thing: (i) => served(i, thing('bench', i)),
};
const kinds = process.env.KINDS ? process.env.KINDS.split(',') : Object.keys(KINDS);

const CANDIDATES = {
  'object graph': { keep: (o) => o, read: (o) => rt.deepCopy(o) },
  'JSON text': { keep: (o) => JSON.stringify(o), read: (s) => JSON.parse(s) },
  'UTF-8 bytes': { keep: (o) => Buffer.from(JSON.stringify(o)), read: (b) => JSON.parse(b.toString()) },
};

function liveBytes() {
  globalThis.gc();
  globalThis.gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}
function best(fn) {
  let min = Infinity;
  for (let r = 0; r < ROUNDS; r++) {
    const t = performance.now();
    fn();
    min = Math.min(min, performance.now() - t);
  }
  return min;
}

const rows = [];
let sink = 0;
for (const kind of kinds) {
  const make = KINDS[kind];
  if (!make) throw new Error(`unknown kind ${kind}; one of ${Object.keys(KINDS).join(', ')}`);
  // The wire form, as a reflector receives it; made once and shared by the candidates.
  const wire = Array.from({ length: OBJECTS }, (_, i) => JSON.stringify(make(i)));
  const jsonBytes = wire.reduce((a, s) => a + Buffer.byteLength(s), 0) / OBJECTS;
  for (const [name, c] of Object.entries(CANDIDATES)) {
    const transform = rt.compactObjects({ stripManagedFields: false });
    const before = liveBytes();
    const t = performance.now();
    const store = new Map();
    for (const s of wire) {
      const o = transform(JSON.parse(s));
      store.set(o.metadata.name, c.keep(o));
    }
    const ingestUs = ((performance.now() - t) * 1000) / OBJECTS;
    const perObject = (liveBytes() - before) / OBJECTS;
    const keys = [...store.keys()];
    const getUs =
      (best(() => {
        for (let k = 0; k < 1000; k++) sink += c.read(store.get(keys[(k * 7) % keys.length])).metadata.name.length;
      }) *
        1000) /
      1000;
    const listMs = best(() => {
      const out = [];
      for (let k = 0; k < 1000; k++) out.push(c.read(store.get(keys[k % keys.length])));
      sink += out.length;
    });
    rows.push([
      kind,
      jsonBytes.toFixed(0),
      name,
      perObject.toFixed(0),
      ingestUs.toFixed(1),
      getUs.toFixed(1),
      listMs.toFixed(2),
    ]);
    store.clear();
  }
}
console.log(`node ${process.version}; ${OBJECTS} objects per kind; best of ${ROUNDS} for reads${sink < 0 ? '' : ''}`);
printTable(['kind', 'JSON B', 'kept as', 'B/object', 'take in µs', 'get µs', 'list 1,000 ms'], rows);
