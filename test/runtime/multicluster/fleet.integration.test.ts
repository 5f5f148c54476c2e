// A fleet of three real control planes, each its own etcd and kube-apiserver, started side by side: east (which also
// holds the kubeconfig Secrets), west, and north, which serves Dock but not Ship. The operator is a project scaffolded
// by this checkout's CLI (init, create api twice, edit --plugins=multicluster/v1-alpha), bundled and run as its own
// process; it finds its clusters through kubeconfig Secrets and says what it reconciles in its JSON log lines, which
// are all this test watches.
// The suspension of a cluster past its grace period (controllers stopped, queues dropped, engaged again) is tested
// with a short grace period in isolation.integration.test.ts; the scaffolded operator keeps the default one (60 s).
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { TestEnvironment } from '../../../src/envtest/index.js';
import {
  Namespaces,
  Secrets,
  defineResource,
  newClient,
  type KubeObject,
  type RestClient,
} from '../../../src/runtime/rest/index.js';
import { bundleForNode } from '../../../scripts/lib/bundle-for-node.js';
import { minutes } from '../../support/commands.js';
import { eventually } from '../../support/eventually.js';
import { CONTROL_PLANE_START_MS } from '../../support/limits.js';

const run = promisify(execFile);
const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const LABEL = { 'sigs.k8s.io/multicluster-runtime-kubeconfig': 'true' };
const NS = 'fleet';
type Kind = 'Ship' | 'Dock';
/** As `create api` scaffolds a kind: spec.foo, required spec. */
type Scaffolded = KubeObject & { spec?: { foo?: string } };
const resources = {
  Ship: defineResource<Scaffolded>({
    group: 'fleet.example.com',
    version: 'v1',
    kind: 'Ship',
    plural: 'ships',
    namespaced: true,
  }),
  Dock: defineResource<Scaffolded>({
    group: 'fleet.example.com',
    version: 'v1',
    kind: 'Dock',
    plural: 'docks',
    namespaced: true,
  }),
};

let dir = '';
let east: TestEnvironment;
let west: TestEnvironment;
let north: TestEnvironment;
const clients = new Map<string, RestClient>();
const envs = (): Record<string, TestEnvironment> => ({ east, west, north });
const api = (cluster: string): RestClient => clients.get(cluster)!;

/** Runs this checkout's CLI in `cwd`. */
async function scaffold(cwd: string, ...args: string[]): Promise<void> {
  await run(process.execPath, [join(repoRoot, 'bin/scaffold.js'), ...args], {
    cwd,
    env: { ...process.env, NO_COLOR: '1' },
  });
}

/** The operator, made by the CLI and bundled to run as a process; returns its CRDs by kind. */
async function scaffoldOperator(): Promise<Record<Kind, object>> {
  const root = join(dir, 'operator');
  mkdirSync(root);
  await scaffold(root, 'init', '--domain', 'example.com', '--skip-install');
  for (const kind of ['Ship', 'Dock'])
    await scaffold(
      root,
      'create',
      'api',
      '--group',
      'fleet',
      '--version',
      'v1',
      '--kind',
      kind,
      '--resource',
      '--controller',
    );
  await scaffold(root, 'edit', '--plugins=multicluster/v1-alpha');
  await scaffold(root, 'manifests');
  await bundleForNode(join(root, 'cmd/main.ts'), join(dir, 'operator.mjs'));
  const crd = (plural: string) =>
    parse(readFileSync(join(root, `config/crd/bases/fleet.example.com_${plural}.yaml`), 'utf8')) as object;
  return { Ship: crd('ships'), Dock: crd('docks') };
}

beforeAll(async () => {
  mkdirSync(join(repoRoot, '.tmp'), { recursive: true });
  dir = mkdtempSync(join(repoRoot, '.tmp', 'fleet-'));
  // The three control planes start side by side, while the operator is scaffolded (the bound is for a loaded machine).
  // An API server asked to stop waits for its watches to end; the test's is killed after a second, as a crash would.
  const start = () => TestEnvironment.start({ startTimeout: CONTROL_PLANE_START_MS, stopTimeout: 1_000 });
  const [scaffolded, ...planes] = await Promise.allSettled([scaffoldOperator(), start(), start(), start()]);
  const up = planes.flatMap((p) => (p.status === 'fulfilled' ? [p.value] : []));
  if (scaffolded.status === 'rejected' || up.length < 3) {
    // Those that started are stopped here: afterAll knows only the control planes the test got.
    await Promise.all(up.map((env) => env.stop()));
    throw [scaffolded, ...planes].flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []))[0];
  }
  const crds = scaffolded.value;
  [east, west, north] = up as [TestEnvironment, TestEnvironment, TestEnvironment];
  await Promise.all([
    east.installCRDs([crds.Ship, crds.Dock]),
    west.installCRDs([crds.Ship, crds.Dock]),
    north.installCRDs([crds.Dock]),
  ]);
  for (const [name, env] of Object.entries(envs())) {
    clients.set(name, newClient(env.kubeConfig));
    await api(name).create(Namespaces, { metadata: { name: NS } });
  }
}, minutes(4));

afterAll(async () => {
  try {
    for (const c of clients.values()) c.close();
    await Promise.all(Object.values(envs()).map((e) => e?.stop()));
  } finally {
    // A bundle left in .tmp would be linted.
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
});

/** The kubeconfig Secret in east that names `cluster`. */
async function secretFor(cluster: string): Promise<void> {
  const kubeconfig = Buffer.from(envs()[cluster]!.kubeconfigYaml()).toString('base64');
  await api('east').create(Secrets, {
    metadata: { namespace: NS, name: cluster, labels: LABEL },
    data: { kubeconfig },
  });
}

/** The operator's process and what it has said: its JSON log lines, and its whole output for failure messages. */
function startOperator(): {
  child: ChildProcess;
  lines: Array<Record<string, unknown>>;
  output: () => string;
  exited: Promise<number | null>;
} {
  const kubeconfig = join(dir, 'east.kubeconfig');
  writeFileSync(kubeconfig, east.kubeconfigYaml());
  const child = spawn(
    process.execPath,
    [
      join(dir, 'operator.mjs'),
      `--kubeconfig-secret-namespace=${NS}`,
      '--health-probe-bind-address=0',
      '--metrics-bind-address=0',
    ],
    { env: { ...process.env, KUBECONFIG: kubeconfig }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const lines: Array<Record<string, unknown>> = [];
  let output = '';
  let partial = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => {
    output += d.toString();
    // A chunk may end in the middle of a line: its rest comes with the next.
    const complete = (partial + d.toString()).split('\n');
    partial = complete.pop() ?? '';
    for (const l of complete) {
      try {
        if (l.trim()) lines.push(JSON.parse(l) as Record<string, unknown>);
      } catch {
        // Not a log line; the output is kept for the failure message.
      }
    }
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, lines, output: () => output, exited };
}

describe('a fleet of three control planes', () => {
  it(
    'a scaffolded operator reconciles its kinds in the clusters its kubeconfig Secrets name, engages one added at run time and one lacking a CRD, loses no reconcile while one is down, and disengages one whose Secret goes',
    async () => {
      await secretFor('east');
      await secretFor('north');
      const created: string[] = [];
      const create = async (cluster: string, kind: Kind, name: string) => {
        await api(cluster).create(resources[kind], {
          apiVersion: resources[kind].apiVersion,
          kind,
          metadata: { namespace: NS, name },
          spec: { foo: name },
        });
        created.push(`${cluster}/${kind}/${name}`);
      };
      await create('east', 'Ship', 'pequod');
      await create('east', 'Dock', 'nantucket');
      await create('west', 'Ship', 'rachel');
      await create('west', 'Dock', 'bristol');
      await create('north', 'Dock', 'tromso');

      const op = startOperator();
      const reconciles = (key: string) =>
        op.lines.filter(
          (l) =>
            `${String(l.cluster)}/${String(l.msg).replace('reconciling ', '')}/${String(l.name)}` === key &&
            String(l.msg).startsWith('reconciling '),
        ).length;
      const missed = (cluster?: string) =>
        created.filter((k) => (!cluster || k.startsWith(`${cluster}/`)) && reconciles(k) === 0);
      const said = (msg: string, cluster: string) => op.lines.some((l) => l.msg === msg && l.cluster === cluster);
      const diagnose = () =>
        `not reconciled: ${missed().join(', ') || 'none'}\n${op.output().split('\n').slice(-40).join('\n')}`;
      const allReconciled = (what: string, ...clusters: string[]) =>
        eventually(() => clusters.every((c) => missed(c).length === 0), { what, diagnose, timeoutMs: minutes(1) });
      try {
        await allReconciled('the Ships and Docks of east, and the Dock of north, reconciled', 'east', 'north');
        // north serves no Ship: engaged all the same for Dock, saying what it lacks.
        expect(said('Engaged cluster', 'north')).toBe(true);
        expect(
          op.lines.find((l) => l.cluster === 'north' && String(l.msg).includes('does not serve some kinds'))
            ?.missingKinds,
        ).toEqual(['Ship.fleet.example.com/v1']);
        expect(missed('west')).toEqual(['west/Ship/rachel', 'west/Dock/bristol']);

        // A Secret created while the operator runs: its cluster engaged without a restart; Dock is now reconciled
        // in all three clusters.
        const added = performance.now();
        await secretFor('west');
        await allReconciled('the operator reconciling in west', 'west');
        console.log(`west's Secret to its first reconciles: ${Math.round(performance.now() - added)} ms`);

        // west's API server dies mid-run, while objects are being made in the others.
        const outage = west.stopAPIServer();
        for (let i = 0; i < 5; i++) {
          await create('east', 'Ship', `during-${i}`);
          await create('north', 'Dock', `during-${i}`);
        }
        await outage;
        // The operator sees west go: its informers' watches fail there, and retry.
        await eventually(() => op.lines.some((l) => l.cluster === 'west' && l.level === 'error'), {
          what: "the operator's informers in west failing",
          diagnose: () =>
            op.lines
              .filter((l) => l.cluster === 'west')
              .slice(-10)
              .map((l) => JSON.stringify(l))
              .join('\n'),
        });
        for (let i = 5; i < 10; i++) {
          await create('east', 'Dock', `during-${i}`);
          await create('north', 'Dock', `during-${i}`);
        }
        await allReconciled('every object of east and north reconciled while west is down', 'east', 'north');
        // Back: west's informers find it again and it reconciles what is made there.
        await west.startAPIServer();
        const back = performance.now();
        await create('west', 'Ship', 'after-outage');
        await create('east', 'Dock', 'after-outage');
        await allReconciled('west reconciling again once it is back', 'west', 'east');
        console.log(`west's API server answering to its first reconcile: ${Math.round(performance.now() - back)} ms`);
        // The healthy clusters lost no reconcile: every object made in them was reconciled.
        const healthy = created.filter((k) => !k.startsWith('west/'));
        expect(healthy.length).toBe(24);
        expect(missed('east').length + missed('north').length).toBe(0);

        // Deleted: disengaged, and what changes there is no longer reconciled.
        await api('east').delete(Secrets, { namespace: NS, name: 'west' });
        await eventually(() => said('Disengaged cluster', 'west'), { what: 'west disengaged', diagnose });
        await api('west').create(resources.Ship, {
          apiVersion: resources.Ship.apiVersion,
          kind: 'Ship',
          metadata: { namespace: NS, name: 'after-disengage' },
          spec: { foo: 'after-disengage' },
        });
        await create('east', 'Ship', 'still-east');
        await allReconciled('east reconciling on', 'east');
        expect(reconciles('west/Ship/after-disengage')).toBe(0);
      } finally {
        op.child.kill('SIGTERM');
        expect(await op.exited, diagnose()).toBe(0);
      }
    },
    minutes(3),
  );
});
