// Shared by bench/sharding.js and bench/first-pass.js: the objects a replica reconciles (labelled ConfigMaps, or the
// objects of a kind made by `scaffold create api`, with the Secrets the first of each namespace owns), the replicas
// themselves (test/runtime/fixtures/sharded-replica.ts bundled, and its controller-runtime peer bench/go/shardpeer),
// the JSON lines they time themselves with, and what /proc says about a process (CPU, peak RSS, bytes read). Not a
// benchmark itself.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { bundleForNode } from '../scripts/lib/bundle-for-node.js';
import { scaffoldKind } from '../scripts/lib/scaffolded-kind.js';
import { childNode, cpuSeconds, deployedManagerResources, goBinary } from './runtime-lib.js';

export { cpuSeconds } from './runtime-lib.js';

/** The label every reconciled object and owned Secret carries (the replicas cache only those). */
export const LABEL = 'shard.kubescaffold.dev/test';

const fixture = fileURLToPath(new URL('../test/runtime/fixtures/sharded-replica.ts', import.meta.url));

// ---- /proc ----

/** What /proc says of a process now: RSS and peak RSS (VmRSS, VmHWM) and bytes read (rchar), in bytes; CPU seconds. */
export function procStats(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const io = readFileSync(`/proc/${pid}/io`, 'utf8');
  const kb = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return {
    rss: kb('VmRSS'),
    peakRss: kb('VmHWM'),
    rchar: Number(/^rchar:\s+(\d+)$/m.exec(io)?.[1] ?? NaN),
    cpu: cpuSeconds(pid),
  };
}

/**
 * The pid of the kube-apiserver a TestEnvironment started (envtest runs it under a small supervisor and does not
 * say): the process whose command is kube-apiserver with this environment's --cert-dir, found under /proc.
 */
export function apiServerPid(env) {
  const flag = `--cert-dir=${env.apiServerInfo.certDir}`;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let argv;
    try {
      argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
    } catch {
      continue; // gone meanwhile, or not ours to read
    }
    if (basename(argv[0] ?? '') === 'kube-apiserver' && argv.includes(flag)) return Number(entry);
  }
  throw new Error(`no kube-apiserver process with ${flag} under /proc`);
}

// ---- the objects ----

/**
 * The kind the replicas reconcile: 'configmap' (ConfigMaps; want = data.want, payload data.pad) or 'crd' (a kind
 * made by `scaffold create api` in `dir`, its CRD installed on `env` and served; want = spec.foo, payload spec.pad, a
 * string field added to the scaffolded spec). Returns its Resource, its name for the replicas (SHARD_RESOURCE and
 * shardpeer's -resource; undefined for ConfigMaps), and how to make, read and change an object of it.
 */
export async function reconciledKind(kind, { rt, env, dir }) {
  if (kind === 'configmap') {
    return {
      kind,
      resource: rt.ConfigMaps,
      name: undefined,
      describe: 'ConfigMaps (want: data.want, payload: data.pad)',
      object: (key, want, payload) => ({
        metadata: { ...key, labels: { [LABEL]: '1' } },
        data: { want, pad: 'x'.repeat(payload) },
      }),
      want: (obj) => obj.data?.want,
      wantPatch: (want) => ({ data: { want } }),
    };
  }
  if (kind !== 'crd') throw new Error(`KIND=${kind}: configmap or crd`);
  const project = join(dir, 'scaffolded');
  mkdirSync(project, { recursive: true });
  const scaffolded = await scaffoldKind(project);
  // installCRDs returns once discovery serves the kind and a LIST of it succeeds.
  await env.installCRDs([scaffolded.crd]);
  const { resource } = scaffolded;
  return {
    kind,
    resource,
    name: scaffolded.name,
    describe: `${resource.kind} (${scaffolded.name}, made by \`scaffold create api\`; want: spec.foo, payload: spec.pad)`,
    object: (key, want, payload) => ({
      apiVersion: resource.apiVersion,
      kind: resource.kind,
      metadata: { ...key, labels: { [LABEL]: '1' } },
      spec: { foo: want, pad: 'x'.repeat(payload) },
    }),
    want: (obj) => obj.spec?.foo,
    wantPatch: (want) => ({ spec: { foo: want } }),
  };
}

/** Runs fn on each item, `width` at a time. */
export async function pool(items, width, fn) {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await fn(items[next++]);
    }),
  );
}

/** The keys of objects [from, to) spread over `namespaces`: o<i / n> in namespace i % n. */
export function objectKeys(namespaces, from, to) {
  return Array.from({ length: to - from }, (_, j) => ({
    namespace: namespaces[(from + j) % namespaces.length],
    name: `o${Math.floor((from + j) / namespaces.length)}`,
  }));
}

/**
 * Creates the objects [from, to) of `kind` (want '1', `payload` bytes of padding) in `namespaces`; with from = 0 also
 * the namespaces, and then the Secret (data v = '1') each namespace's first object, o0, owns as its controller.
 * Returns the keys created.
 */
export async function createObjects(client, rt, kind, { namespaces, from = 0, to, payload }) {
  if (from === 0) await pool(namespaces, 8, (name) => client.create(rt.Namespaces, { metadata: { name } }));
  const keys = objectKeys(namespaces, from, to);
  await pool(keys, 24, (k) => client.create(kind.resource, kind.object(k, '1', payload)));
  if (from === 0) {
    await pool(namespaces, 8, async (namespace) => {
      const owner = await client.get(kind.resource, { namespace, name: 'o0' });
      const { apiVersion, kind: ownerKind } = kind.resource;
      await client.create(rt.Secrets, {
        metadata: {
          namespace,
          name: 'o0',
          labels: { [LABEL]: '1' },
          ownerReferences: [{ apiVersion, kind: ownerKind, name: 'o0', uid: owner.metadata.uid, controller: true }],
        },
        stringData: { v: '1' },
      });
    });
  }
  return keys;
}

// ---- the replicas ----

/** Bundles the TypeScript replica into dir/sharded-replica.mjs; returns its path. */
export async function bundleReplica(dir) {
  const out = join(dir, 'sharded-replica.mjs');
  // Split as the image's bundle is, so that the replica loads at start-up what a deployed manager loads.
  await bundleForNode(fixture, out, { split: true });
  return out;
}

/**
 * Our replica's Node flags as the scaffolded manager.yaml (and Dockerfile ENTRYPOINT) runs it, plus --expose-gc for
 * the memory figures taken after a full collection: a function of the old-space size in MiB, and the manifest's own.
 */
export async function ourNodeFlags() {
  const { nodeOptions } = await deployedManagerResources();
  const heap = nodeOptions.find((f) => f.startsWith('--max-old-space-size='));
  const manifestHeapMb = Number(heap?.split('=')[1]);
  if (!Number.isFinite(manifestHeapMb)) throw new Error(`no --max-old-space-size in ${nodeOptions.join(' ')}`);
  // SEMI_MB replaces the manifest's --max-semi-space-size, to measure what the young generation's size does.
  const semi = process.env.SEMI_MB;
  const others = nodeOptions
    .filter((f) => f !== heap)
    .filter((f) => semi === undefined || !f.startsWith('--max-semi-space-size='))
    .concat(semi === undefined ? [] : [`--max-semi-space-size=${semi}`]);
  return {
    manifestHeapMb,
    // EXTRA_NODE_FLAGS adds flags of its own, such as --cpu-prof --cpu-prof-dir=DIR for a profile of each replica.
    flags: (heapMb = manifestHeapMb) => [
      '--expose-gc',
      ...others,
      `--max-old-space-size=${heapMb}`,
      ...(process.env.EXTRA_NODE_FLAGS ?? '').split(' ').filter((f) => f !== ''),
    ],
  };
}

/**
 * One replica process, ours (mode 'leader', 'uid' or 'namespace': the fixture's third argument) or controller-runtime's
 * ('controller-runtime': shardpeer, active-passive), and the lines it prints. `spawnedAt` is the bench's Date.now()
 * at spawn, comparable with the lines' `at`; `started` resolves once it printed its start line, with /proc's figures
 * then (its baseline); `counted` is its latest reconcile count and `countedAt` that line's `at`. `wrap` (a
 * MemoryCgroup's) starts it inside a memory cgroup.
 */
export class Replica {
  constructor(
    impl,
    {
      identity,
      leaseNamespace,
      kubeconfig,
      kind,
      leaseMs,
      readOnly,
      expect,
      doneKey,
      script,
      nodeFlags,
      echoStderr = true,
      traceWant,
      wrap,
    },
  ) {
    this.impl = impl;
    this.identity = identity;
    this.handlers = new Set();
    this.counted = 0;
    this.countedAt = undefined;
    const env = {
      ...process.env,
      KUBECONFIG: kubeconfig,
      SHARD_DONE_KEY: doneKey,
      SHARD_STATS_GC: '1',
      ...(readOnly ? { SHARD_READ_ONLY: '1' } : {}),
      ...(expect ? { SHARD_EXPECT: String(expect) } : {}),
      ...(traceWant ? { SHARD_TRACE_WANT: traceWant } : {}),
      ...(kind.name && impl !== 'controller-runtime' ? { SHARD_RESOURCE: kind.name } : {}),
    };
    const [command, args] =
      impl === 'controller-runtime'
        ? [
            goBinary('shardpeer'),
            [
              '-kubeconfig-file',
              kubeconfig,
              '-lease-namespace',
              leaseNamespace,
              '-identity',
              identity,
              '-lease-duration',
              `${leaseMs}ms`,
              ...(readOnly ? ['-read-only'] : []),
              ...(kind.name ? ['-resource', kind.name] : []),
            ],
          ]
        : [childNode(), [...nodeFlags, script, leaseNamespace, identity, impl, String(leaseMs)]];
    // wrap: a MemoryCgroup's (src/cluster/cgroup.ts), to start it inside a memory limit; it execs the command itself.
    const run = wrap ? wrap(command, args) : { command, args };
    this.spawnedAt = Date.now();
    this.p = spawn(run.command, run.args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.stderrTail = '';
    this.p.stderr.on('data', (d) => {
      if (echoStderr) process.stderr.write(d);
      this.stderrTail = (this.stderrTail + d.toString()).slice(-4000);
    });
    // 'close': after its exit and its stdout and stderr have ended (an abort's message is in stderrTail by then).
    this.exited = new Promise((resolve) => this.p.once('close', (code, signal) => resolve({ code, signal })));
    createInterface({ input: this.p.stdout }).on('line', (line) => {
      let msg;
      try {
        msg = JSON.parse(line);
      } catch {
        return;
      }
      if ((msg.type === 'progress' || msg.type === 'reconciled') && msg.reconciles >= this.counted) {
        this.counted = msg.reconciles;
        this.countedAt = msg.at;
      }
      for (const h of [...this.handlers]) h(msg);
    });
    this.started = this.next('started').then(() => procStats(this.p.pid));
    this.started.catch(() => {});
  }

  /** Calls fn with every line from now on; returns a function that stops that. */
  onLine(fn) {
    this.handlers.add(fn);
    return () => this.handlers.delete(fn);
  }

  /** The next line of `type`; rejects if the process exits first. */
  next(type) {
    return new Promise((resolve, reject) => {
      const off = this.onLine((msg) => {
        if (msg.type !== type) return;
        off();
        resolve(msg);
      });
      void this.exited.then(({ code, signal }) => {
        off();
        reject(new Error(`${this.impl} ${this.identity} exited (${code ?? signal}) before a ${type} line`));
      });
    });
  }

  /** Its figures (a stats line) once, asked with SIGUSR2: after a full GC for ours (SHARD_STATS_GC). */
  stats() {
    const answer = this.next('stats');
    this.p.kill('SIGUSR2');
    return answer;
  }

  /**
   * How it ran out of heap, from its stderr: 'stopped' (the manager's HeapLimitError, one line naming the limit to
   * raise), 'aborted' (V8's fatal out-of-memory abort), or false.
   */
  outOfHeap() {
    if (/HeapLimitError: the heap is full/.test(this.stderrTail)) return 'stopped';
    if (/heap out of memory|Reached heap limit|Ineffective mark-compacts/.test(this.stderrTail)) return 'aborted';
    return false;
  }

  get running() {
    return this.p.exitCode === null && this.p.signalCode === null;
  }

  /** SIGTERM, then its exit. */
  async stop() {
    if (this.running) this.p.kill('SIGTERM');
    await this.exited;
  }
}

/**
 * Guards a run of `replicas` named `what`: `died` rejects (err.outOfHeap set when V8 said so) as soon as one exits
 * before stopAll() was called, since its figures would then be another process's; stopAll() stops them all.
 */
export function guardRun(replicas, what) {
  let stopping = false;
  const died = Promise.race(
    replicas.map((r) =>
      r.exited.then(({ code, signal }) => {
        if (stopping) return new Promise(() => {});
        const err = new Error(`${what}: ${r.identity} exited (${code ?? signal}) during the run`);
        err.outOfHeap = r.outOfHeap();
        throw err;
      }),
    ),
  );
  died.catch(() => {}); // raced by the caller; a replica exiting between its races must not end the process unexplained
  return {
    died,
    stopAll: () => {
      stopping = true;
      return Promise.all(replicas.map((r) => r.stop()));
    },
  };
}

/**
 * Resolves once the replicas' latest reconcile counts add up to `total`, with the `at` (a replica's Date.now()) of the
 * line that brought the sum there; rejects when `died` does.
 */
export function allReconciled(replicas, total, died) {
  return new Promise((resolve, reject) => {
    const offs = [];
    const done = (f) => {
      for (const off of offs) off();
      f();
    };
    const check = (at) => {
      const sum = replicas.reduce((a, r) => a + r.counted, 0);
      if (sum >= total) done(() => resolve({ at, sum }));
    };
    for (const r of replicas)
      offs.push(r.onLine((msg) => (msg.type === 'progress' || msg.type === 'reconciled') && check(msg.at)));
    died?.catch((err) => done(() => reject(err)));
    // Lines already read count too (then the latest of their times is the one that brought the sum there).
    check(Math.max(...replicas.map((r) => r.countedAt ?? 0)));
  });
}
