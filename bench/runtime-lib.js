// Shared by bench/runtime-*.js: the Thing custom resource (bench/go/thing is its Go twin; its coordinates are in
// runtime-thing.js), the control plane, object creation, the peers (the Go peers' builds, the bundled peer), and
// table printing; it re-exports runtime-dist.js (where the build under test is). And by the ports in examples/ beside
// their Go originals (bench/reloader.js, bench/sealed-secrets.js): the bundle, the process, the measured run, the
// table. Not a benchmark itself.
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  cpSync,
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { loadavg, tmpdir, cpus } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { treeSize } from '../scripts/lib/dockerfile.js';
import { cachedNodeVersion, newestNodeVersion, nodeBinDir } from '../scripts/lib/node-binary.js';
import { importCli, importEnvtest } from './runtime-dist.js';
import { GROUP, KIND, PLURAL, VERSION } from './runtime-thing.js';

export { dists, importCli, importEnvtest, importRuntime } from './runtime-dist.js';
export { GROUP, KIND, PLURAL, SENT_ANNOTATION, THING, VERSION } from './runtime-thing.js';

const str = { type: 'string' };
const strMap = { type: 'object', additionalProperties: str };

/** The Thing CRD with a structural schema, as controller-gen would write it for bench/go/thing's types. */
export const thingCRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${PLURAL}.${GROUP}` },
  spec: {
    group: GROUP,
    names: { kind: KIND, listKind: `${KIND}List`, plural: PLURAL, singular: 'thing' },
    scope: 'Namespaced',
    versions: [
      {
        name: VERSION,
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              apiVersion: str,
              kind: str,
              metadata: { type: 'object' },
              spec: {
                type: 'object',
                required: ['replicas', 'image'],
                properties: {
                  replicas: { type: 'integer', format: 'int32' },
                  image: str,
                  paused: { type: 'boolean' },
                  command: { type: 'array', items: str },
                  ports: {
                    type: 'array',
                    items: {
                      type: 'object',
                      required: ['name', 'containerPort'],
                      properties: { name: str, containerPort: { type: 'integer', format: 'int32' }, protocol: str },
                    },
                  },
                  env: {
                    type: 'array',
                    items: { type: 'object', required: ['name'], properties: { name: str, value: str } },
                  },
                  resources: { type: 'object', properties: { requests: strMap, limits: strMap } },
                  selector: strMap,
                  config: strMap,
                  description: str,
                },
              },
              status: {
                type: 'object',
                properties: {
                  token: str,
                  observedGeneration: { type: 'integer', format: 'int64' },
                  stamp: str,
                  phase: str,
                },
              },
            },
          },
        },
      },
    ],
  },
};

/** A Thing whose spec is about 1 KiB of JSON, varied per index like real objects (names, images, env values). */
export function thing(namespace, i, prefix = 'thing') {
  const tier = ['web', 'api', 'worker', 'db'][i % 4];
  return {
    apiVersion: `${GROUP}/${VERSION}`,
    kind: KIND,
    metadata: {
      name: `${prefix}-${String(i).padStart(6, '0')}`,
      namespace,
      labels: { 'app.kubernetes.io/name': 'bench', 'app.kubernetes.io/component': tier, shard: String(i % 32) },
    },
    spec: {
      replicas: (i % 5) + 1,
      image: `registry.example.com/team-${i % 9}/service-${tier}:v2.${i % 40}.${i % 7}`,
      paused: i % 10 === 0,
      command: ['/app/server', '--config=/etc/app/config.yaml', `--shard=${i % 32}`, '--log-level=info'],
      ports: [
        { name: 'http', containerPort: 8080, protocol: 'TCP' },
        { name: 'grpc', containerPort: 9000, protocol: 'TCP' },
        { name: 'metrics', containerPort: 9090, protocol: 'TCP' },
      ],
      env: [
        { name: 'APP_MODE', value: 'production' },
        { name: 'APP_INSTANCE', value: `instance-${i}` },
        { name: 'REGION', value: ['eu-west-1', 'us-east-1', 'ap-south-1'][i % 3] },
        { name: 'FEATURE_FLAGS', value: 'alpha=false,beta=true,gamma=false' },
        { name: 'DB_POOL_SIZE', value: String(10 + (i % 20)) },
      ],
      resources: {
        requests: { cpu: `${100 + (i % 4) * 50}m`, memory: '128Mi' },
        limits: { cpu: '1', memory: '512Mi' },
      },
      selector: { 'app.kubernetes.io/name': 'bench', 'app.kubernetes.io/instance': `instance-${i}` },
      config: {
        'cache.ttl': `${60 + (i % 60)}s`,
        'http.timeout': '30s',
        'retry.max': String(3 + (i % 3)),
        'upstream.url': `https://upstream-${i % 13}.internal.example.com:8443/v1`,
      },
      description: `Thing number ${i}: a synthetic custom object for kubescaffold's runtime benchmarks, shaped like a small workload spec with ports, environment, resources, selectors and free-form configuration.`,
    },
  };
}

/** Text of `size` characters that varies with `i`, as real ConfigMap and Secret values do (nothing shared by accident). */
export function variedText(i, size) {
  const words = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet'];
  let s = '';
  for (let k = 0; s.length < size; k++) s += `${words[(i + k) % 10]}-${(i * 31 + k) % 997} `;
  return s.slice(0, size);
}

/** A ConfigMap's or Secret's data of about `size` characters, in files of at most 512. */
export function configData(i, size) {
  const data = {};
  const parts = Math.max(1, Math.ceil(size / 512));
  for (let k = 0; k < parts; k++) data[`file-${k}.conf`] = variedText(i + k, Math.ceil(size / parts));
  return data;
}

/** Creates things[from..to) in namespace, `concurrency` requests at a time; returns the milliseconds it took. */
export async function createThings(client, res, namespace, from, to, { concurrency = 24, prefix = 'thing' } = {}) {
  const t = performance.now();
  let next = from;
  const worker = async () => {
    while (next < to) {
      const i = next++;
      await client.create(res, thing(namespace, i, prefix));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return performance.now() - t;
}

/** Starts a control plane with the Thing CRD; the kubeconfig is also written to a file for the Go peers. */
export async function startControlPlane() {
  const { TestEnvironment } = await importEnvtest();
  const env = await TestEnvironment.start({ crds: [thingCRD], startTimeout: 180_000 });
  const dir = mkdtempSync(join(tmpdir(), 'ks-runtime-bench-'));
  const kubeconfigPath = join(dir, 'kubeconfig');
  writeFileSync(kubeconfigPath, env.kubeconfigYaml());
  return {
    env,
    kubeconfigPath,
    async stop() {
      await env.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const goDir = fileURLToPath(new URL('./go/', import.meta.url));
const outDir = fileURLToPath(new URL('./out/', import.meta.url));

function newestMtime(dir) {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}

/** Path of the Go peer bench/go/<name> built into bench/out/go-<name> (rebuilt when a Go source is newer). */
export function goBinary(name) {
  const bin = join(outDir, `go-${name}`);
  let built = 0;
  try {
    built = statSync(bin).mtimeMs;
  } catch {
    // not built yet
  }
  if (built < newestMtime(goDir)) {
    process.stderr.write(`building bench/go/${name} ...\n`);
    execFileSync('go', ['build', '-o', bin, `./${name}`], {
      cwd: goDir,
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, CGO_ENABLED: '0' },
    });
  }
  return bin;
}

/** The Go toolchain's version string, e.g. go1.26.8. */
export function goVersion() {
  return execFileSync('go', ['env', 'GOVERSION'], { encoding: 'utf8' }).trim();
}

/** One line about where and under what load the run happened. */
export function machineLine() {
  const l = loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
  return `node ${process.version}, ${goVersion()}, ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), load average ${l}`;
}

export const loadLine = () =>
  `load average now: ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`;

/** Prints rows (arrays of cells) under headers, columns right-aligned except the first. */
export function printTable(headers, rows) {
  const all = [headers, ...rows].map((r) => r.map((c) => String(c)));
  const widths = headers.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  const fmt = (r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  console.log(fmt(all[0]));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of all.slice(1)) console.log(fmt(r));
}

/** Nearest-rank percentile of numbers (p in 0..100). */
export function percentile(values, p) {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

export const ratio = (a, b) => (b > 0 && Number.isFinite(a) ? `${(a / b).toFixed(2)}×` : '-');
export const mib = (bytes) => (bytes / 1048576).toFixed(1);

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const reconcileChild = fileURLToPath(new URL('./runtime-reconcile-child.js', import.meta.url));

/**
 * One running reconcile peer, speaking the line protocol of bench/go/reconcile: `controller-runtime` is that Go
 * manager; any other name is ours, bench/runtime-reconcile-child.js, or the `script` given (the bundled peer's
 * manager.js), run in `cwd`. `deployed` runs it as config/default deploys a scaffolded manager (secure metrics, health
 * probes, leader election on a Lease of its own: controller-runtime does not release its Lease on stop, and the next
 * peer would wait out the 15 s lease). `mode` (ours only) runs a part of that instead: see runReconcilePeer in
 * runtime-reconcile-peer.js. Our peers run on CHILD_NODE (default this Node) with `nodeFlags` plus CHILD_NODE_FLAGS,
 * and without NODE_PATH.
 */
export class Peer {
  constructor(
    name,
    {
      kubeconfig,
      namespace,
      token,
      expect,
      workers = 1,
      deployed = false,
      mode = deployed ? 'deployed' : undefined,
      nodeFlags = [],
      script = reconcileChild,
      cwd,
    },
  ) {
    this.name = name;
    const go = name === 'controller-runtime';
    const envFlags = (process.env.CHILD_NODE_FLAGS ?? '').split(' ').filter(Boolean);
    const args = go
      ? [
          '-kubeconfig-file',
          kubeconfig,
          '-namespace',
          namespace,
          '-token',
          token,
          '-expect',
          String(expect),
          '-workers',
          String(workers),
          ...(deployed
            ? [
                '-metrics-bind-address',
                ':0',
                '-health-probe-bind-address',
                ':0',
                '-leader-elect',
                '-leader-election-id',
                `lease-${token}`,
              ]
            : []),
        ]
      : [
          '--expose-gc',
          ...nodeFlags,
          ...envFlags,
          script,
          kubeconfig,
          namespace,
          token,
          String(expect),
          String(workers),
          ...(mode ? [mode] : []),
        ];
    const env = { ...process.env };
    if (!go) delete env.NODE_PATH;
    this.spawnedAt = performance.now();
    this.proc = spawn(go ? goBinary('reconcile') : childNode(), args, { stdio: ['pipe', 'pipe', 'inherit'], cwd, env });
    this.waiters = [];
    this.exited = new Promise((resolve) => this.proc.on('exit', (code) => resolve(code)));
    this.exited.then((code) => {
      for (const w of this.waiters.splice(0))
        w.reject(new Error(`${name} exited (code ${code}) while waiting for ${w.type}`));
    });
    createInterface({ input: this.proc.stdout }).on('line', (line) => {
      let msg;
      try {
        msg = JSON.parse(line);
      } catch {
        return;
      }
      msg.receivedAt = performance.now();
      const i = this.waiters.findIndex((w) => w.type === msg.type);
      if (i >= 0) this.waiters.splice(i, 1)[0].resolve(msg);
    });
  }

  next(type, timeoutMs = 30 * 60_000) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${this.name}: no ${type} within ${timeoutMs} ms`)), timeoutMs);
      this.waiters.push({
        type,
        resolve: (m) => (clearTimeout(timer), resolve(m)),
        reject: (e) => (clearTimeout(timer), reject(e)),
      });
    });
  }

  ask(cmd) {
    const reply = this.next(cmd.split(' ')[0], 120_000);
    this.proc.stdin.write(`${cmd}\n`);
    return reply;
  }

  /**
   * Its memory now: its answer to `heap` (after full GCs) with /proc's RSS, RssAnon, RssFile and peak RSS (VmRSS,
   * RssAnon, RssFile, VmHWM) as rssBytes, anonBytes, fileBytes and peakBytes.
   */
  async memory() {
    const h = await this.ask('heap');
    return {
      ...h,
      rssBytes: this.statusBytes('VmRSS'),
      anonBytes: this.statusBytes('RssAnon'),
      fileBytes: this.statusBytes('RssFile'),
      peakBytes: this.peakRssBytes(),
    };
  }

  /** The process's peak RSS so far (VmHWM), in bytes, as the kernel counts it. */
  peakRssBytes() {
    return this.statusBytes('VmHWM');
  }

  /** A size field of /proc/PID/status (VmHWM, RssAnon: the process's own memory, RssFile: mapped files), in bytes. */
  statusBytes(field) {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(readFileSync(`/proc/${this.proc.pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : NaN;
  }

  async stop() {
    if (this.proc.exitCode === null) this.proc.stdin.end('stop\n');
    const code = await Promise.race([this.exited, sleep(60_000).then(() => 'timeout')]);
    if (code === 'timeout') this.proc.kill('SIGKILL');
  }
}

const bundleTemplate = new URL('../templates/init/hack/bundle.js.hbs', import.meta.url);

/**
 * The options the scaffolded hack/bundle.js passes to esbuild's build(), read from the template (its one object
 * literal), for benchmarks that bundle the manager another way (a metafile, another format) with everything else the
 * same.
 */
export function bundleOptions() {
  const literal = /await build\((\{[\s\S]*\})\);/.exec(readFileSync(bundleTemplate, 'utf8'))?.[1];
  if (!literal) throw new Error(`the build() options of ${fileURLToPath(bundleTemplate)} were not found`);
  return new Function(`return (${literal});`)();
}

/**
 * The bundled peer, as a scaffolded project's image holds its manager. bench/runtime-reconcile-bundled.js (the
 * reconcile peer importing the runtime by package name, as cmd/main.ts does) is bundled by the scaffolded
 * hack/bundle.js itself: templates/init/hack/bundle.js.hbs, run unchanged in bench/out/bundled-peer/, where
 * dist/cmd/main.js, its entry point, imports that file. Then, as the Dockerfile's final stage does, a package.json and
 * the contents of bundle/ are copied into a fresh directory under the system's temp directory, with no node_modules in
 * it or above it (nor in the global folders a require() would search). Returns that directory, the manager.js to run,
 * the bundle's size, and a function that removes the directory. `entry` (a file under bench/) and `name` (the
 * directory under bench/out/) bundle another entry point the same way (bench/idle-modules.js does).
 */
export function bundledPeer({
  entry = fileURLToPath(new URL('./runtime-reconcile-bundled.js', import.meta.url)),
  name = 'bundled-peer',
} = {}) {
  const template = readFileSync(bundleTemplate, 'utf8');
  if (template.includes('{{'))
    throw new Error(`${fileURLToPath(bundleTemplate)} has template expressions now: render it before running it`);
  const project = join(outDir, name);
  rmSync(project, { recursive: true, force: true });
  mkdirSync(join(project, 'hack'), { recursive: true });
  mkdirSync(join(project, 'dist', 'cmd'), { recursive: true });
  writeFileSync(
    join(project, 'package.json'),
    `${JSON.stringify({ name: 'bench-manager', private: true, type: 'module' }, null, 2)}\n`,
  );
  writeFileSync(join(project, 'hack', 'bundle.js'), template);
  writeFileSync(
    join(project, 'dist', 'cmd', 'main.js'),
    `import '${relative(join(project, 'dist', 'cmd'), entry)}';\n`,
  );
  execFileSync(process.execPath, ['hack/bundle.js'], { cwd: project, stdio: ['ignore', 'inherit', 'inherit'] });

  const dir = nodeModulesFreeDir();
  cpSync(join(project, 'package.json'), join(dir, 'package.json'));
  cpSync(join(project, 'bundle'), dir, { recursive: true });
  return {
    dir,
    script: join(dir, 'manager.js'),
    ...treeSize(dir),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * A fresh directory under the system's temp directory with no node_modules in it or above it, nor in the global
 * folders a require() would search: where a bundle runs as in the image's /app.
 */
export function nodeModulesFreeDir() {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'ks-bundled-manager-')));
  const searched = [];
  for (let d = dir; ; d = dirname(d)) {
    searched.push(join(d, 'node_modules'));
    if (d === dirname(d)) break;
  }
  if (process.env.HOME)
    searched.push(join(process.env.HOME, '.node_modules'), join(process.env.HOME, '.node_libraries'));
  searched.push(join(dirname(dirname(childNode())), 'lib', 'node'));
  const found = searched.filter((p) => existsSync(p));
  if (found.length > 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`the bundled peer must run where no node_modules can be found, but ${found.join(', ')} exist(s)`);
  }
  return dir;
}

/** The Node binary our peers run on: CHILD_NODE (e.g. the Node 22 the scaffolded image uses), else this one. */
export const childNode = () => process.env.CHILD_NODE || process.execPath;

/**
 * The manager container of a scaffolded project as config/manager/manager.yaml declares it (rendered without a
 * project's choices: the template's conditionals dropped): its memory request and limit in bytes, and the Node
 * options its environment gives the process once the kubelet has resolved the Downward API and $(VAR) references
 * (with a heap percentage turned into the MiB it means under the limit, since the peers run without a cgroup).
 * `project` (a directory, e.g. examples/sealed-secrets) reads that project's config/manager/manager.yaml and
 * Dockerfile instead of the templates.
 */
export async function deployedManagerResources({ project } = {}) {
  const { parse } = await import('yaml');
  const { nodeOptionsForLocalRun, parseQuantity, resolveContainerEnv } = await importCli('cluster/container.js');
  const template = readFileSync(
    project
      ? join(project, 'config', 'manager', 'manager.yaml')
      : new URL('../templates/init/config/manager/manager.yaml.hbs', import.meta.url),
    'utf8',
  );
  const text = template
    .split('\n')
    .filter((l) => !/^\s*\{\{[#/]/.test(l))
    .join('\n')
    .replace(/\{\{[^}]*\}\}/g, 'x');
  const docs = text
    .split(/^---$/m)
    .map((d) => parse(d))
    .filter(Boolean);
  const deployment = docs.find((d) => d.kind === 'Deployment');
  const container = deployment.spec.template.spec.containers.find((c) => c.name === 'manager');
  const env = resolveContainerEnv(container, { name: 'controller-manager-0', namespace: 'system' });
  const limitBytes = parseQuantity(container.resources.limits.memory);
  // The peers run outside a memory cgroup: a Node that would read the limit from one gets it spelled out.
  const nodeOptions = nodeOptionsForLocalRun(env.NODE_OPTIONS ?? '', limitBytes, false);
  // The image's ENTRYPOINT may give node flags of its own (V8 flags NODE_OPTIONS does not accept); the image runs
  // Node 22, and an older Node (20 has no such V8 flag) is given only the flags it knows.
  const { entrypointNodeFlags, supportedNodeFlags } = await importCli('cluster/deployed/entrypoint.js');
  const dockerfile = project
    ? join(project, 'Dockerfile')
    : fileURLToPath(new URL('../templates/init/Dockerfile.hbs', import.meta.url));
  const { supported: entrypointFlags } = supportedNodeFlags(childNode(), entrypointNodeFlags(dockerfile));
  return {
    limitBytes,
    requestBytes: parseQuantity(container.resources.requests.memory),
    nodeOptions: [...entrypointFlags, ...nodeOptions.split(' ').filter(Boolean)],
  };
}

// ---- /proc ----

let clockTicks;
/** Clock ticks per second of /proc/PID/stat's times (getconf CLK_TCK; 100 on Linux). */
function ticksPerSecond() {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

/** CPU seconds a process has used so far, user and system (utime + stime of /proc/PID/stat). */
export function cpuSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) is in parentheses and may hold spaces: count fields after its closing one.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond();
}

// ---- a port in examples/ beside its Go original (bench/reloader.js, bench/sealed-secrets.js) ----

/** Resolves after `ms` without keeping the process alive: a bound raced against what is awaited. */
export const bound = (ms) => new Promise((r) => setTimeout(r, ms).unref());

/** Points CHILD_NODE at the cached Node 22 (the scaffolded image's) unless it is set: our managers run on it. */
export function useImageNode() {
  if (process.env.CHILD_NODE) return;
  const version = cachedNodeVersion('22') ?? newestNodeVersion('22');
  process.env.CHILD_NODE = join(
    nodeBinDir(version, (line) => console.error(line)),
    'node',
  );
}

/**
 * examples/<name> bundled as its image bundles it (the scaffolded hack/bundle.js's options, the runtime from its
 * build) into a directory with no node_modules, as the image's /app: the manager.js to run and a remove().
 */
export async function bundleExample(name) {
  const { build } = await import('esbuild');
  const out = mkdtempSync(join(tmpdir(), `ks-${name}-bundle-`));
  await build({
    ...bundleOptions(),
    entryPoints: { manager: fileURLToPath(new URL(`../examples/${name}/cmd/main.ts`, import.meta.url)) },
    outdir: join(out, 'bundle'),
    logLevel: 'error',
  });
  const dir = nodeModulesFreeDir();
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name, private: true, type: 'module' })}\n`);
  cpSync(join(out, 'bundle'), dir, { recursive: true });
  rmSync(out, { recursive: true, force: true });
  return { dir, script: join(dir, 'manager.js'), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Spawns an operator with its output in logFile: `spawnedAt` (performance.now()), `exited` (its exit code or
 * signal), and stop() (SIGTERM, SIGKILL after 15 s).
 */
export function spawnOperator(command, args, { env, cwd, logFile }) {
  const log = createWriteStream(logFile);
  const spawnedAt = performance.now();
  const proc = spawn(command, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  proc.stdout.pipe(log, { end: false });
  proc.stderr.pipe(log, { end: false });
  const exited = once(proc, 'exit').then(([code, signal]) => signal ?? code);
  return {
    proc,
    spawnedAt,
    exited,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) {
        proc.kill('SIGTERM');
        const timer = setTimeout(() => proc.kill('SIGKILL'), 15_000);
        await exited;
        clearTimeout(timer);
      }
      log.end();
    },
  };
}

/** VmRSS or VmHWM of a process, in bytes. */
export function statusBytes(pid, field) {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : NaN;
}

/**
 * Watches `res` in `namespace` from its current state on; `keysOf(event)` names what an event shows (a hash, a
 * value), and expect(key) resolves with the performance.now() of the first event that shows `key`.
 */
export class KeyWatch {
  constructor({ client, res, namespace, keysOf }) {
    Object.assign(this, { client, res, namespace, keysOf });
    this.waiting = new Map();
    this.abort = new AbortController();
  }

  async start() {
    const list = await this.client.list(this.res, { namespace: this.namespace });
    this.running = this.loop(list.metadata.resourceVersion);
  }

  async loop(resourceVersion) {
    let rv = resourceVersion;
    while (!this.abort.signal.aborted) {
      try {
        for await (const e of this.client.watch(this.res, {
          namespace: this.namespace,
          resourceVersion: rv,
          allowWatchBookmarks: true,
          signal: this.abort.signal,
        })) {
          const at = performance.now();
          if (e.object?.metadata?.resourceVersion) rv = e.object.metadata.resourceVersion;
          for (const key of this.keysOf(e)) {
            const w = this.waiting.get(key);
            if (w) {
              this.waiting.delete(key);
              w(at);
            }
          }
        }
      } catch (err) {
        if (this.abort.signal.aborted) return;
        console.error(`watch ended (${err.message}); watching again from ${rv}`);
        await sleep(200);
      }
    }
  }

  /** Resolves with the time the watch sees an event showing `key`. */
  expect(key) {
    return new Promise((resolve) => this.waiting.set(key, resolve));
  }

  forget(key) {
    this.waiting.delete(key);
  }

  async stop() {
    this.abort.abort();
    await this.running;
  }
}

/**
 * One run of one operator, measured from outside it (/proc and the caller's watch), then stopped:
 * 1. start → first pass: `firstPass({ op, died })` resolves with the performance.now() of the first pass (within
 *    `firstPassTimeoutMs`, default 300 s); CPU seconds by then;
 * 2. idle with caches full: `settleMs` after that, the median of 5 RSS samples 0.5 s apart;
 * 3. the burst: `change(k)` for k < `changes` at `rate` a second, each returning { write, seen } (the write's
 *    promise, and the time the watch saw its effect); latency p50/p95 from sending to seeing, CPU seconds of the
 *    operator and of the kube-apiserver (`apiPid`) from the first change to the last seen (or `burstTimeoutMs` after
 *    the last write), peak RSS (VmHWM) at the end.
 */
export async function measureOperator({ name, start, logFile, apiPid, firstPass, change, burst }) {
  const { changes, rate, settleMs, burstTimeoutMs, firstPassTimeoutMs = 300_000 } = burst;
  const op = start(logFile);
  const pid = op.proc.pid;
  // Rejects once the operator exits, naming its log; raced against what is awaited while it runs.
  const died = op.exited.then((how) => {
    throw new Error(
      `${name} exited (${how}) during the run: see ${logFile}\n${readFileSync(logFile, 'utf8').slice(-3000)}`,
    );
  });
  died.catch(() => {});
  try {
    const firstAt = await Promise.race([
      firstPass({ op, died }),
      died,
      bound(firstPassTimeoutMs).then(() =>
        Promise.reject(new Error(`${name}: no first pass within ${firstPassTimeoutMs / 1000} s`)),
      ),
    ]);
    const startSeconds = (firstAt - op.spawnedAt) / 1000;
    const startCpu = cpuSeconds(pid);

    await Promise.race([sleep(settleMs), died]);
    const samples = [];
    for (let i = 0; i < 5; i++) {
      samples.push(statusBytes(pid, 'VmRSS'));
      await sleep(500);
    }
    const idleRss = percentile(samples, 50);

    const cpu0 = cpuSeconds(pid);
    const api0 = cpuSeconds(apiPid);
    const t0 = performance.now();
    const latencies = [];
    const writes = [];
    const seenAll = [];
    for (let k = 0; k < changes; k++) {
      await sleep(Math.max(0, t0 + (k * 1000) / rate - performance.now()));
      const sentAt = performance.now();
      const { write, seen } = change(k);
      writes.push(write);
      seenAll.push(seen.then((at) => latencies.push(at - sentAt)));
    }
    await Promise.all(writes);
    await Promise.race([Promise.all(seenAll), died, bound(burstTimeoutMs)]);
    const burstCpu = cpuSeconds(pid) - cpu0;
    const apiCpu = cpuSeconds(apiPid) - api0;
    return {
      startSeconds,
      startCpu,
      idleRss,
      peakRss: statusBytes(pid, 'VmHWM'),
      burstCpu,
      apiCpu,
      burstSeconds: (performance.now() - t0) / 1000,
      seen: latencies.length,
      p50: percentile(latencies, 50),
      p95: percentile(latencies, 95),
    };
  } finally {
    await op.stop();
  }
}

/**
 * RUNS runs of each of `peers` (measureOperator's results from `runOne(name, run)`), alternating which goes first,
 * each printed as it ends; then the table of medians and, for two peers, the first's ÷ the second's. `seen` names
 * what the watch saw of each change ('reloads', 'Secrets').
 */
export async function runBesideOriginal({ title, peers, runs, runOne, changes, rate, seen }) {
  const results = Object.fromEntries(peers.map((p) => [p, []]));
  for (let run = 0; run < runs; run++) {
    const order = run % 2 === 0 ? peers : [...peers].reverse();
    for (const name of order) {
      const r = await runOne(name, run);
      results[name].push(r);
      console.log(
        `run ${run + 1} ${name}: start → first pass ${r.startSeconds.toFixed(2)} s, idle RSS ${mib(r.idleRss)} MiB, ` +
          `peak ${mib(r.peakRss)} MiB, burst CPU ${r.burstCpu.toFixed(2)} s (kube-apiserver ${r.apiCpu.toFixed(2)} s), ` +
          `latency p50 ${r.p50.toFixed(0)} ms p95 ${r.p95.toFixed(0)} ms, ${r.seen}/${changes} ${seen} seen (${loadLine()})`,
      );
    }
  }
  const median = (name, key) => percentile(results[name]?.map((r) => r[key]) ?? [], 50);
  const rows = [
    ['start → first pass (s)', 'startSeconds', (x) => x.toFixed(2)],
    ['CPU s by the first pass', 'startCpu', (x) => x.toFixed(2)],
    ['idle RSS, caches full (MiB)', 'idleRss', mib],
    ['peak RSS (MiB)', 'peakRss', mib],
    [`CPU s, ${changes} changes at ${rate}/s`, 'burstCpu', (x) => x.toFixed(2)],
    ["kube-apiserver's CPU s, same", 'apiCpu', (x) => x.toFixed(2)],
    ['latency p50 (ms)', 'p50', (x) => x.toFixed(0)],
    ['latency p95 (ms)', 'p95', (x) => x.toFixed(0)],
    [`${seen} seen`, 'seen', (x) => String(x)],
  ];
  console.log(`\n${title}; median of ${runs} run(s); ${loadLine()}`);
  printTable(
    ['measure', ...peers, ...(peers.length === 2 ? [`${peers[0]} ÷ ${peers[1]}`] : [])],
    rows.map(([label, key, fmt]) => [
      label,
      ...peers.map((p) => fmt(median(p, key))),
      ...(peers.length === 2 ? [ratio(median(peers[0], key), median(peers[1], key))] : []),
    ]),
  );
  return results;
}
