/**
 * `scaffold run --as-deployed`: the built manager run on this machine the way config/default runs it in a pod, so
 * that missing RBAC, wrong namespaces, probes on the wrong port or a manager too big for its memory limit show up
 * before an image is built. It applies what the pod needs (namespace, ServiceAccount, RBAC, CRDs), gives the process
 * only the ServiceAccount's identity (a TokenRequest token in an in-cluster-style directory), the container's args
 * and env, its memory limit (a cgroup where the machine allows one), polls its probes as the kubelet does, and stops
 * it as the kubelet stops a pod.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect, loadConfig, type ConnectOptions } from '../connect.js';
import { applyManifests } from '../apply.js';
import { createMemoryCgroup, type MemoryCgroup } from '../cgroup.js';
import { parseQuantity } from '../container.js';
import { createCpuCgroup, type CpuCgroup } from '../cpu-cgroup.js';
import { buildConfig } from '../manifests.js';
import { isCRD, type ManifestObject } from '../objects.js';
import { buildProject } from '../run.js';
import { entrypointNodeFlags, supportedNodeFlags } from './entrypoint.js';
import { ForbiddenReporter } from './forbidden.js';
import { ServiceAccountMount, TOKEN_SECONDS } from './identity.js';
import { checkMetrics } from './metrics-check.js';
import { planPod, probePort, type HttpProbe, type PodPlan } from './pod.js';
import { Prober, type ProbeState } from './prober.js';
import { localSettings, type LocalSettings } from './settings.js';

export interface AsDeployedOptions extends ConnectOptions {
  /** Skip `npm run build`. */
  skipBuild?: boolean;
  /** Where the report goes, one line at a time. Default stderr. */
  report?: (line: string) => void;
  /** Where the manager's own output goes. Default this process's stdout. */
  output?: (chunk: string) => void;
  /** Where signals come from; tests pass their own emitter. Default process. */
  signals?: NodeJS.EventEmitter;
  /** Seconds as milliseconds, for the probes and the grace period; tests shorten it. Default 1000. */
  secondMs?: number;
}

const MiB = 2 ** 20;
const RSS_POLL_MS = 2000;

/** The CRDs as rendered, but without conversion webhooks: their Service does not exist where nothing is deployed. */
function withoutConversionWebhooks(objects: ManifestObject[], report: (line: string) => void): ManifestObject[] {
  return objects.map((o) => {
    const spec = (o as { spec?: { conversion?: { strategy?: string } } }).spec;
    if (!isCRD(o) || spec?.conversion?.strategy !== 'Webhook') return o;
    report(
      `CRD ${o.metadata.name}: applied with conversion strategy None; its conversion webhook needs the deployed Service`,
    );
    return { ...o, spec: { ...spec, conversion: { strategy: 'None' } } };
  });
}

function rssBytes(pid: number): number | undefined {
  try {
    const m = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Builds, prepares the cluster, and runs the manager until a signal; resolves with the exit code to use. */
export async function runAsDeployed(root: string, opts: AsDeployedOptions = {}): Promise<number> {
  const report = opts.report ?? ((line: string) => process.stderr.write(`[as-deployed] ${line}\n`));
  const output = opts.output ?? ((chunk: string) => process.stdout.write(chunk));
  const second = opts.secondMs ?? 1000;
  loadConfig(opts); // a missing or broken kubeconfig is said before the build, not after it
  if (!opts.skipBuild) buildProject(root);
  const plan = planPod(buildConfig(root, 'config/default'), 'config/default');
  const cluster = await connect(opts);
  const cleanups: Array<() => void | Promise<void>> = [() => cluster.close()];
  try {
    report(
      `preparing ${plan.namespace}/${plan.deployment} on ${cluster.server} (context ${cluster.context}): namespace, ServiceAccount, RBAC and CRDs, server-side applied as kubescaffold`,
    );
    await applyManifests(cluster, withoutConversionWebhooks(plan.prerequisites, report), {
      log: (line) => report(`  ${line}`),
    });
    const mount = await ServiceAccountMount.create({
      client: cluster.client,
      kubeConfig: cluster.kubeConfig,
      namespace: plan.namespace,
      serviceAccount: plan.serviceAccountName,
      onRenewError: (e) => report(`renewing the ServiceAccount token failed: ${(e as Error).message}`),
    });
    cleanups.push(() => mount.stop());
    const { supported, unsupported } = supportedNodeFlags(
      process.execPath,
      entrypointNodeFlags(join(root, 'Dockerfile')),
    );
    const settings = await localSettings({
      plan,
      server: new URL(cluster.server),
      serviceAccountDir: mount.dir,
      podName: `${plan.deployment}-local`,
      nodeSupportsHeapPercentage: process.allowedNodeEnvironmentFlags.has('--max-old-space-size-percentage'),
      baseEnv: process.env,
      nodeFlags: supported,
    });
    report(
      `identity: ServiceAccount ${plan.namespace}/${plan.serviceAccountName} (a ${TOKEN_SECONDS / 60}-minute TokenRequest token, renewed at 80% of its life), never your kubeconfig's user`,
    );
    for (const note of settings.notes) report(note);
    if (supported.length > 0) report(`node flags from the Dockerfile's ENTRYPOINT: ${supported.join(' ')}`);
    if (unsupported.length > 0)
      report(
        `not passed, this Node (${process.version}) does not know them: ${unsupported.join(' ')} (from the Dockerfile's ENTRYPOINT)`,
      );
    report(`args: ${settings.args.join(' ') || '(none)'}`);
    const { memory, cpu } = limits(plan, report);
    if (memory) cleanups.push(() => memory.remove());
    if (cpu) cleanups.push(() => cpu.remove());
    return await supervise(
      root,
      plan,
      settings,
      { memory, cpu },
      { ...opts, report, output, second },
      cluster.client,
      cleanups,
    );
  } finally {
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup();
      } catch {
        // best effort: the rest still runs
      }
    }
  }
}

interface Limits {
  memory?: MemoryCgroup;
  cpu?: CpuCgroup;
}

/** The container's memory and CPU limits as cgroups, or a plain statement of each that is not enforced here. */
function limits(plan: PodPlan, report: (line: string) => void): Limits {
  const out: Limits = {};
  if (plan.memoryLimitBytes === undefined) {
    report(
      'no memory limit in the Deployment: nothing to enforce (set resources.limits.memory in config/manager/manager.yaml)',
    );
  } else {
    try {
      out.memory = createMemoryCgroup(`kubescaffold-run-${process.pid}`, plan.memoryLimitBytes);
      report(`memory limit ${plan.memoryLimitBytes / MiB} MiB: enforced by cgroup ${out.memory.path}`);
    } catch (e) {
      report(
        `memory limit ${plan.memoryLimitBytes / MiB} MiB: NOT enforced here (${(e as Error).message}); the process's RSS is watched against it instead`,
      );
    }
  }
  if (plan.cpuLimit !== undefined) {
    try {
      out.cpu = createCpuCgroup(
        `kubescaffold-run-${process.pid}`,
        parseQuantity(plan.cpuLimit),
        out.memory?.version === 2 ? out.memory.path : undefined,
      );
      report(
        `CPU limit ${plan.cpuLimit}: enforced by cgroup ${out.cpu.path} (a quota of ${out.cpu.quotaUs / 1000} ms per 100 ms)`,
      );
    } catch (e) {
      report(`CPU limit ${plan.cpuLimit}: NOT enforced here (${(e as Error).message})`);
    }
  }
  return out;
}

interface Supervision extends AsDeployedOptions {
  report: (line: string) => void;
  output: (chunk: string) => void;
  second: number;
}

async function supervise(
  root: string,
  plan: PodPlan,
  settings: LocalSettings,
  { memory: cgroup, cpu }: Limits,
  opts: Supervision,
  client: Parameters<typeof checkMetrics>[0],
  cleanups: Array<() => void | Promise<void>>,
): Promise<number> {
  const { report, second } = opts;
  const forbidden = new ForbiddenReporter(report);
  const signals = opts.signals ?? process;
  let child: ChildProcess | undefined;
  let restarts = 0;
  let stopping = false;
  let metricsChecked = false;
  let overLimitReported = false;
  const probers: Prober[] = [];
  let finish: (code: number) => void = () => undefined;
  const finished = new Promise<number>((resolve) => (finish = resolve));

  const graceMs = plan.terminationGracePeriodSeconds * second;
  /** As the kubelet stops a container: SIGTERM, then SIGKILL once the grace period is over. */
  const stopChild = async (): Promise<number | null> => {
    const c = child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return c?.exitCode ?? null;
    const exited = new Promise<number | null>((resolve) => c.once('exit', (code) => resolve(code)));
    c.kill('SIGTERM');
    const timer = setTimeout(() => {
      report(
        `the manager did not stop within terminationGracePeriodSeconds (${plan.terminationGracePeriodSeconds}); killing it, as the kubelet would`,
      );
      c.kill('SIGKILL');
    }, graceMs);
    const code = await exited;
    clearTimeout(timer);
    return code;
  };

  const startProbes = () => {
    for (const p of probers.splice(0)) p.stop();
    const probe = (
      name: string,
      spec: HttpProbe | undefined,
      onChange: (state: ProbeState, detail: string) => void,
    ) => {
      if (!spec) {
        report(`no ${name} probe in the Deployment`);
        return;
      }
      const containerPort = probePort(plan, spec.port);
      const local = settings.ports.get(containerPort);
      if (local === undefined) {
        report(
          `the ${name} probe asks port ${containerPort}, on which the manager's args listen nowhere (check --health-probe-bind-address in config/manager/manager.yaml)`,
        );
        return;
      }
      const prober = new Prober({
        probe: spec,
        url: `http://127.0.0.1:${local}${spec.path}`,
        onChange,
        secondMs: second,
      });
      probers.push(prober);
      prober.start();
    };
    probe('readiness', plan.readiness, (state, detail) => {
      report(
        state === 'passing'
          ? `ready (${plan.readiness!.path}: ${detail})`
          : `NOT ready: ${plan.readiness!.path} ${detail}`,
      );
      if (state === 'passing' && !metricsChecked && settings.metrics) {
        metricsChecked = true;
        checkMetrics(client, settings.metrics.url, plan.namespace, plan.metricsReaderRole).then(
          (lines) => lines.forEach(report),
          (e: unknown) => report(`metrics check failed: ${(e as Error).message}`),
        );
      }
    });
    probe('liveness', plan.liveness, (state, detail) => {
      if (state !== 'failing' || stopping) return;
      report(`liveness probe failed (${plan.liveness!.path}: ${detail}): restarting the manager, as the kubelet would`);
      void stopChild().then(() => {
        if (stopping) return;
        restarts++;
        start();
      });
    });
  };

  const start = () => {
    // Each cgroup's shell joins it and execs the next: the manager starts inside both limits.
    let command = { command: process.execPath, args: [...settings.nodeFlags, 'dist/cmd/main.js', ...settings.args] };
    if (cgroup) command = cgroup.wrap(command.command, command.args);
    if (cpu) command = cpu.wrap(command.command, command.args);
    const c = spawn(command.command, command.args, {
      cwd: root,
      env: settings.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: process.platform !== 'win32',
    });
    child = c;
    if (restarts > 0) report(`restart ${restarts}`);
    const onOutput = (chunk: Buffer) => {
      const text = chunk.toString();
      opts.output(text);
      forbidden.scan(text);
    };
    c.stdout!.on('data', onOutput);
    c.stderr!.on('data', onOutput);
    c.once('exit', (code, signal) => {
      if (c !== child) return;
      const oom = cgroup ? cgroup.oomKills() > 0 : false;
      if (oom)
        report(
          `OOMKilled: the manager needed more than its ${plan.memoryLimitBytes! / MiB} MiB limit; raise resources.limits.memory in config/manager/manager.yaml (and the request with it)`,
        );
      if (stopping) return;
      if (code === 0 || signal === 'SIGTERM') return;
      // A pod's container that exits is restarted with back-off; here the run ends and says why.
      for (const p of probers.splice(0)) p.stop();
      report(
        `the manager exited (${signal ?? `code ${code}`}); in the cluster the kubelet would restart it with back-off (CrashLoopBackOff)`,
      );
      finish(code ?? 1);
    });
    startProbes();
  };

  if (!cgroup && plan.memoryLimitBytes !== undefined) {
    const limit = plan.memoryLimitBytes;
    const timer = setInterval(() => {
      const rss = child?.pid !== undefined ? rssBytes(child.pid) : undefined;
      if (rss === undefined || overLimitReported || rss <= limit) return;
      overLimitReported = true;
      report(
        `RSS ${(rss / MiB).toFixed(1)} MiB is over the container's ${limit / MiB} MiB memory limit: in the cluster it would be OOM-killed; raise resources.limits.memory in config/manager/manager.yaml`,
      );
    }, RSS_POLL_MS);
    timer.unref();
    cleanups.push(() => clearInterval(timer));
  }

  const onSignal = () => {
    if (stopping) return;
    stopping = true;
    report(
      `stopping: SIGTERM, then up to ${plan.terminationGracePeriodSeconds}s (terminationGracePeriodSeconds) before SIGKILL; the applied RBAC and CRDs stay (make undeploy / make uninstall remove them)`,
    );
    for (const p of probers.splice(0)) p.stop();
    void stopChild().then((code) => finish(code ?? 0));
  };
  for (const s of ['SIGINT', 'SIGTERM'] as const) signals.on(s, onSignal);
  cleanups.push(() => {
    for (const s of ['SIGINT', 'SIGTERM'] as const) signals.off(s, onSignal);
    for (const p of probers.splice(0)) p.stop();
  });
  cleanups.push(async () => {
    stopping = true;
    await stopChild();
  });
  start();
  const code = await finished;
  if (forbidden.count > 0) report(`${forbidden.count} missing permission(s) reported above`);
  return code;
}
