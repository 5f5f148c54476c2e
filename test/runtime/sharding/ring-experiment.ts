// A shard ring on a real control plane, as the integration and stress tests run it: replicas of
// test/runtime/fixtures/sharded-replica.ts (bundled) over labelled ConfigMaps or a kind made by `scaffold create api`,
// the first object of each namespace owning a Secret, and a RingRecorder that sees every reconcile's write and every
// version of the ring's Leases.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { TestEnvironment } from '../../../src/envtest/index.js';
import { assignPartitions, fnv1a64, partitionOfHash } from '../../../src/runtime/manager/index.js';
import {
  ConfigMaps,
  Namespaces,
  Secrets,
  newClient,
  type Resource,
  type RestClient,
} from '../../../src/runtime/rest/index.js';
import { bundleForNode } from '../../../scripts/lib/bundle-for-node.js';
import { minutes } from '../../support/commands.js';
import { eventually } from '../../support/eventually.js';
import { scaffoldKind } from '../../support/scaffolded-kind.js';
import { RingRecorder, TEST_LABEL, type ObjectState, type RecordedObject } from './ring-recorder.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const fixture = fileURLToPath(new URL('../fixtures/sharded-replica.ts', import.meta.url));
/** The fixture's ring name, and the namespace of its Leases. */
const RING = 'crew';
const LEASE_NS = 'shard-ring';

/** What a replica says of itself on SIGUSR2. */
export interface ReplicaStats {
  cached: number;
  watchEvents: number;
  clientFiltered: number;
  reconciles: number;
  partitions: number[];
}

/** How the experiment is set up. */
export interface RingExperimentOptions {
  /** The ShardedListAndWatch feature gate. */
  gate: boolean;
  /** What places an object. */
  key: 'uid' | 'namespace';
  /** ConfigMaps, or a kind made by `scaffold create api`. */
  kind: 'ConfigMaps' | 'scaffolded';
  namespaces: number;
  perNamespace: number;
  partitions: number;
  /** The replicas' lease duration (ms); their retryPeriod is an eighth of it. */
  leaseMs: number;
  /** How a reconcile is recorded: an annotation (merge patch), or a status condition (update; scaffolded kind only). */
  write?: 'annotation' | 'status';
}

/** Runs `fn` over `items`, `width` at a time. */
export async function pool<T>(items: T[], width: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

export class RingExperiment {
  readonly replicas = new Map<string, ChildProcess>();
  readonly stderr = new Map<string, string>();
  recorder!: RingRecorder;
  client!: RestClient;
  keys: { namespace: string; name: string }[] = [];
  private env: TestEnvironment | undefined;
  private dir = '';
  private replica = '';
  private kubeconfig = '';
  private res: Resource<RecordedObject> = ConfigMaps as Resource<RecordedObject>;
  private resourceEnv: Record<string, string> = {};
  private readonly statsWaiters = new Map<string, ((s: ReplicaStats) => void)[]>();
  private readonly secretValue = new Map<string, string>();
  private namespaces: string[] = [];
  private round = 1;

  constructor(readonly opts: RingExperimentOptions) {}

  /** Starts the control plane, creates the objects and their Secrets, and starts recording. */
  async setUp(): Promise<void> {
    mkdirSync(join(repoRoot, '.tmp'), { recursive: true });
    this.dir = mkdtempSync(join(repoRoot, '.tmp', 'shard-ring-'));
    this.replica = join(this.dir, 'sharded-replica.mjs');
    await bundleForNode(fixture, this.replica);
    const crds = [];
    if (this.opts.kind === 'scaffolded') {
      mkdirSync(join(this.dir, 'project'));
      const scaffolded = await scaffoldKind(join(this.dir, 'project'));
      this.res = scaffolded.resource as Resource<RecordedObject>;
      this.resourceEnv = { SHARD_RESOURCE: scaffolded.name };
      crds.push(scaffolded.crd);
    }
    this.env = await TestEnvironment.start({
      apiServerFlags: { 'feature-gates': `ShardedListAndWatch=${this.opts.gate}` },
      crds,
    });
    this.client = newClient(this.env.kubeConfig);
    this.kubeconfig = join(this.dir, 'kubeconfig');
    writeFileSync(this.kubeconfig, this.env.kubeconfigYaml());

    const c = this.client;
    const res = this.res;
    await c.create(Namespaces, { metadata: { name: LEASE_NS } });
    // The number is not last: FNV-1a spreads names that differ only in their last characters poorly (shard-0 to
    // shard-29 fall in 2 of the 12 partitions), and by namespace the tests need every replica to hold some.
    this.namespaces = Array.from({ length: this.opts.namespaces }, (_, i) => `shard-${i}-ns`);
    await pool(this.namespaces, 8, (name) => c.create(Namespaces, { metadata: { name } }));
    this.keys = this.namespaces.flatMap((namespace) =>
      Array.from({ length: this.opts.perNamespace }, (_, i) => ({ namespace, name: `o${i}` })),
    );
    await pool(this.keys, 16, (k) =>
      c.create(res, {
        apiVersion: res.apiVersion,
        kind: res.kind,
        metadata: { ...k, labels: { [TEST_LABEL]: '1' } },
        ...this.wantBody('1'),
      }),
    );
    await pool(this.namespaces, 8, async (namespace) => {
      const owner = await c.get(res, { namespace, name: 'o0' });
      const ownerReferences = [
        { apiVersion: res.apiVersion, kind: res.kind, name: 'o0', uid: owner.metadata!.uid!, controller: true },
      ];
      await c.create(Secrets, {
        metadata: { namespace, name: 'o0', labels: { [TEST_LABEL]: '1' }, ownerReferences },
        stringData: { v: '1' },
      });
      this.secretValue.set(`${namespace}/o0`, '1');
    });
    this.recorder = new RingRecorder(c, RING, LEASE_NS, res);
    await this.recorder.start();
  }

  async tearDown(): Promise<void> {
    this.recorder?.stop();
    for (const p of this.replicas.values()) {
      if (p.signalCode === 'SIGSTOP') p.kill('SIGCONT');
      if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
    }
    this.client?.close();
    await this.env?.stop();
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
  }

  /** Starts a replica with this identity. */
  start(identity: string): ChildProcess {
    const p = spawn(process.execPath, [this.replica, LEASE_NS, identity, this.opts.key, String(this.opts.leaseMs)], {
      env: {
        ...process.env,
        KUBECONFIG: this.kubeconfig,
        ...this.resourceEnv,
        ...(this.opts.write === 'status' ? { SHARD_WRITE: 'status' } : {}),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.stderr.set(identity, '');
    p.stderr!.on('data', (d: Buffer) =>
      this.stderr.set(identity, (this.stderr.get(identity)! + d.toString()).slice(-4000)),
    );
    createInterface({ input: p.stdout! }).on('line', (line) => {
      const msg = JSON.parse(line) as { type: string } & ReplicaStats;
      if (msg.type === 'stats') for (const resolve of this.statsWaiters.get(identity)?.splice(0) ?? []) resolve(msg);
    });
    this.replicas.set(identity, p);
    return p;
  }

  /** What a running replica says of itself. */
  statsOf(identity: string): Promise<ReplicaStats> {
    return new Promise((resolve) => {
      this.statsWaiters.set(identity, [...(this.statsWaiters.get(identity) ?? []), resolve]);
      this.replicas.get(identity)!.kill('SIGUSR2');
    });
  }

  /** Resolves with how the replica exited. */
  exited(identity: string): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    const p = this.replicas.get(identity)!;
    return p.exitCode !== null || p.signalCode !== null
      ? Promise.resolve({ code: p.exitCode, signal: p.signalCode })
      : new Promise((resolve) => p.once('exit', (code, signal) => resolve({ code, signal })));
  }

  /** The partition an object is in. */
  partitionOf = (o: ObjectState): number =>
    partitionOfHash(fnv1a64(this.opts.key === 'uid' ? o.uid : o.namespace), this.opts.partitions);

  /** The objects whose last reconcile did not see their latest want and Secret. */
  unreconciled(): string[] {
    return [...this.recorder.objects.entries()]
      .filter(([k, o]) => o.done !== `${o.want}/${this.secretValue.get(k) ?? '-'}`)
      .map(([k, o]) => `${k} (partition ${this.partitionOf(o)}) want=${o.want} done=${o.done} by=${o.by}`);
  }

  /** What the recorder, the server and the running replicas say, for a failure's message. */
  diagnose = async (): Promise<string> => {
    const stuck = this.unreconciled();
    const first = stuck[0]?.split(' ')[0];
    let server = '';
    if (first) {
      const [namespace, name] = first.split('/') as [string, string];
      const o = await this.client.get(this.res, { namespace, name }).catch((err: unknown) => String(err));
      server = `the server's ${first}: ${JSON.stringify(typeof o === 'string' ? o : { metadata: { resourceVersion: o.metadata?.resourceVersion, generation: o.metadata?.generation, annotations: o.metadata?.annotations }, spec: o.spec, data: o.data, status: o.status })}`;
    }
    const running = [...this.replicas].filter(([, p]) => p.exitCode === null && p.signalCode === null);
    const stats = await Promise.all(
      running.map(async ([id]) => {
        const s = await Promise.race([
          this.statsOf(id),
          new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 5000).unref()),
        ]);
        return `${id}: ${s ? JSON.stringify({ partitions: s.partitions, reconciles: s.reconciles, cached: s.cached, watchEvents: s.watchEvents }) : 'no answer'}`;
      }),
    );
    return [
      `unreconciled: ${stuck.length}, e.g. ${stuck.slice(0, 5).join('; ')}`,
      `unreconciled by partition: ${this.unreconciledByPartition()}`,
      `announced: ${[...this.recorder.announced()].map(([id, ps]) => `${id}=[${[...ps].join(',')}]`).join(' ')}`,
      server,
      `replicas: ${stats.join('; ')}`,
      ...[...this.stderr].map(([id, s]) => `--- ${id} stderr ---\n${s}`),
    ].join('\n');
  };

  /** How many objects each partition has unreconciled, and which replicas wrote them last: '3: 160 (r2)'. */
  private unreconciledByPartition(): string {
    const by = new Map<number, { n: number; writers: Set<string> }>();
    for (const [k, o] of this.recorder.objects) {
      if (o.done === `${o.want}/${this.secretValue.get(k) ?? '-'}`) continue;
      const p = this.partitionOf(o);
      const entry = by.get(p) ?? { n: 0, writers: new Set<string>() };
      entry.n++;
      entry.writers.add(o.by);
      by.set(p, entry);
    }
    return [...by]
      .sort(([a], [b]) => a - b)
      .map(([p, e]) => `${p}: ${e.n} (last written by ${[...e.writers].join(',')})`)
      .join('; ');
  }

  /** Resolves once every object's last reconcile saw its latest want and Secret. */
  allReconciled(what: string, timeoutMs = minutes(1)): Promise<void> {
    return eventually(() => this.recorder.objects.size === this.keys.length && this.unreconciled().length === 0, {
      what: `every object reconciled ${what}`,
      timeoutMs,
      intervalMs: 100,
      diagnose: this.diagnose,
    });
  }

  /**
   * Resolves once every partition is announced by the replica of `members` the assignment gives it, and by no other
   * member (a killed replica's Lease still names what it held until the others collect it).
   */
  settledOn(members: string[], what: string): Promise<void> {
    return eventually(
      () => {
        const a = this.recorder.announced();
        const owner = assignPartitions(members, this.opts.partitions);
        return owner.every((id, p) => members.every((m) => (a.get(m)?.has(p) ?? false) === (m === id)));
      },
      {
        what: `the partitions spread over ${members.join(', ')} ${what}`,
        timeoutMs: minutes(1),
        diagnose: this.diagnose,
      },
    );
  }

  /** Changes the want of every `every`-th object (all of them with 1) and every owned Secret. */
  async change(every = 10): Promise<void> {
    this.round++;
    const round = this.round;
    const changed = this.keys.filter((_, i) => i % every === round % every);
    await pool(changed, 16, (k) => this.client.patch(this.res, k, this.wantBody(String(round)), { type: 'merge' }));
    await pool(this.namespaces, 8, async (namespace) => {
      this.secretValue.set(`${namespace}/o0`, String(round));
      await this.client.patch(
        Secrets,
        { namespace, name: 'o0' },
        { stringData: { v: String(round) } },
        { type: 'merge' },
      );
    });
  }

  private wantBody(want: string): Partial<RecordedObject> {
    return this.res === ConfigMaps ? { data: { want } } : { spec: { foo: want } };
  }
}
