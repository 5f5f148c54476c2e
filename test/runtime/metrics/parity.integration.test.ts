// Our /metrics against controller-runtime's, for the same controller on the same control plane: the controller-runtime
// v0.25 manager of bench/go/reconcile and ours, each reconciling one Thing with leader election on. Every metric
// family controller-runtime serves (Go's go_* runtime metrics aside) must be served by ours with the same type, label
// names and histogram buckets, so its dashboards and alerts work unchanged; the few exceptions are listed with why.
// Needs Go to build the peer: without it the comparison is skipped loudly, and fails under REQUIRE_PARITY=1 (CI).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestEnvironment } from '../../../src/envtest/index.js';
import {
  Manager,
  defineResource,
  newControllerManagedBy,
  newClient,
  type KubeObject,
} from '../../../src/runtime/index.js';
import { Namespaces } from '../../../src/runtime/rest/index.js';
import { freePort } from '../../../src/envtest/controlplane/ports.js';
import { eventually } from '../../support/eventually.js';
import { captureLog } from '../../support/logs.js';
import { testCRD } from '../../support/crd.js';
import { peerAvailable } from '../../support/peers.js';
import { buildGoPeer } from '../../support/go-peer.js';
import { CHILD_START_MS, CONTROL_PLANE_START_MS } from '../../support/limits.js';

/** Families controller-runtime serves that ours does not, and why. */
const NOT_SERVED_BY_OURS: Record<string, string> = {
  certwatcher_read_certificate_total:
    'our certificate watcher is part of the webhook server, loaded only with webhooks',
  certwatcher_read_certificate_errors_total: 'as above',
  controller_runtime_webhook_panics_total: 'registered by the webhook module, loaded only with webhooks',
  controller_runtime_conversion_webhook_panics_total: 'as above',
};

interface Family {
  type: string;
  labels: Set<string>;
  buckets: number[];
}

/** The families of a text exposition: type, label names, histogram bucket bounds. */
function families(text: string): Map<string, Family> {
  const out = new Map<string, Family>();
  for (const line of text.split('\n')) {
    const t = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (t) out.set(t[1]!, { type: t[2]!, labels: new Set(), buckets: [] });
  }
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? \S+$/.exec(line);
    if (!m) continue;
    const sample = m[1]!;
    const family = out.get(sample) ?? out.get(sample.replace(/_(bucket|sum|count)$/, ''));
    if (!family) continue;
    for (const pair of (m[2] ?? '').match(/(\w+)="(?:[^"\\]|\\.)*"/g) ?? []) {
      const [name, value] = [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 2, -1)];
      if (name === 'le') {
        const bound = Number(value.replace('+Inf', 'Infinity'));
        if (!family.buckets.includes(bound)) family.buckets.push(bound);
      } else family.labels.add(name);
    }
  }
  return out;
}

const THING = {
  group: 'bench.kubescaffold.dev',
  version: 'v1',
  kind: 'Thing',
  plural: 'things',
  namespaced: true,
} as const;
const thingCRD = testCRD({
  group: THING.group,
  kind: THING.kind,
  versions: [{ name: 'v1', spec: { image: { type: 'string' } }, status: { token: { type: 'string' } } }],
});
const peer = ((): string | undefined => {
  try {
    return buildGoPeer('reconcile');
  } catch (err) {
    peerAvailable(
      'metrics parity with controller-runtime',
      `the Go peer bench/go/reconcile could not be built: ${(err as Error).message}`,
    );
    return undefined;
  }
})();

describe.skipIf(!peer)("/metrics against controller-runtime's for the same controller", () => {
  let env: TestEnvironment;
  let dir: string;
  let theirs: Map<string, Family>;
  let ours: Map<string, Family>;

  beforeAll(async () => {
    env = await TestEnvironment.start({ crds: [thingCRD] });
    dir = mkdtempSync(join(tmpdir(), 'ks-metrics-parity-'));
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, env.kubeconfigYaml());
    const client = newClient(env.kubeConfig);
    const Things = defineResource<KubeObject & { spec: { image: string } }>(THING);
    for (const ns of ['theirs', 'ours']) {
      await client.create(Namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
      await client.create(Things, {
        apiVersion: `${THING.group}/v1`,
        kind: 'Thing',
        metadata: { name: 'one', namespace: ns },
        spec: { image: 'x' },
      });
    }
    client.close();

    // controller-runtime: its manager reconciles the Thing (patching its status) and reports it on stdout.
    const port = await freePort();
    const go: ChildProcess = spawn(
      peer!,
      [
        '-kubeconfig-file',
        kubeconfig,
        '-namespace',
        'theirs',
        '-token',
        't',
        '-expect',
        '1',
        '-metrics-bind-address',
        `127.0.0.1:${port}`,
        '-metrics-secure=false',
        '-leader-elect',
        '-leader-election-id',
        'theirs',
      ],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    try {
      const lines = createInterface({ input: go.stdout! });
      await new Promise<void>((resolve, reject) => {
        lines.on('line', (l) => l.includes('"throughput"') && resolve());
        go.once('exit', (code) => reject(new Error(`the controller-runtime peer exited (${code})`)));
      });
      theirs = families(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text());
    } finally {
      go.stdin!.end('stop\n');
      if (go.exitCode === null) await new Promise((r) => go.once('exit', r));
    }

    // Ours: the same controller in this process.
    const logs = captureLog('manager');
    const mgr = new Manager({
      kubeConfig: env.kubeConfig,
      log: logs.log,
      cache: { defaultNamespaces: ['ours'] },
      metrics: { bindAddress: '127.0.0.1:0', secureServing: false },
      leaderElection: { enabled: true, id: 'ours', namespace: 'ours' },
    });
    let reconciled = 0;
    newControllerManagedBy(mgr)
      .for(Things)
      .named('thing')
      .complete({
        reconcile: async (req) => {
          await mgr
            .getClient()
            .status()
            .patch(Things, req, { status: { token: 't' } }, { type: 'merge' });
          reconciled++;
          return {};
        },
      });
    const ac = new AbortController();
    const done = mgr.start(ac.signal);
    try {
      await eventually(() => reconciled > 0 && mgr.metricsAddress() !== undefined, {
        what: 'our manager to reconcile',
        diagnose: () => logs.tail(),
      });
      ours = families(await (await fetch(`http://127.0.0.1:${mgr.metricsAddress()!.port}/metrics`)).text());
    } finally {
      ac.abort();
      await done;
    }
  }, CONTROL_PLANE_START_MS + CHILD_START_MS);

  afterAll(async () => {
    await env?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('serves every family controller-runtime serves, with its type, label names and buckets', () => {
    const compared = [...theirs.keys()].filter((name) => !name.startsWith('go_') && !(name in NOT_SERVED_BY_OURS));
    expect(compared.length).toBeGreaterThan(15);
    for (const name of compared) {
      const t = theirs.get(name)!;
      const o = ours.get(name);
      expect(o, `${name} is not served`).toBeDefined();
      expect(o!.type, `${name}: type`).toBe(t.type);
      expect([...o!.labels].sort(), `${name}: label names`).toEqual([...t.labels].sort());
      if (t.type === 'histogram') expect(o!.buckets, `${name}: buckets`).toEqual(t.buckets);
    }
  });

  it('lists nothing as an exception that controller-runtime no longer serves', () => {
    for (const name of Object.keys(NOT_SERVED_BY_OURS)) expect(theirs.has(name), name).toBe(true);
  });
});
