// Shared by bench/runtime-*.js: the Thing custom resource (bench/go/thing is its Go twin; its coordinates are in
// runtime-thing.js), the control plane, object creation, the peers (the Go peers' builds, the bundled peer), and
// table printing; it re-exports runtime-dist.js (where the build under test is). Not a benchmark itself.
import { execFileSync, spawn } from 'node:child_process';
import {
  cpSync,
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
 */
export async function deployedManagerResources() {
  const { parse } = await import('yaml');
  const { nodeOptionsForLocalRun, parseQuantity, resolveContainerEnv } = await importCli('cluster/container.js');
  const template = readFileSync(new URL('../templates/init/config/manager/manager.yaml.hbs', import.meta.url), 'utf8');
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
  const dockerfile = fileURLToPath(new URL('../templates/init/Dockerfile.hbs', import.meta.url));
  const { supported: entrypointFlags } = supportedNodeFlags(childNode(), entrypointNodeFlags(dockerfile));
  return {
    limitBytes,
    requestBytes: parseQuantity(container.resources.requests.memory),
    nodeOptions: [...entrypointFlags, ...nodeOptions.split(' ').filter(Boolean)],
  };
}
