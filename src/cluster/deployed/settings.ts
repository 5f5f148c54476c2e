/**
 * The manager's command line and environment for a local run as its pod would have them: the container's args with
 * its listening ports moved to free local ones (a pod has ports of its own; this machine may not), certificate paths
 * that name unmounted volumes dropped, and the env the kubelet would resolve plus what makes the runtime load the
 * in-cluster config from a service account directory.
 */
import { freePort } from '@kubescaffold/envtest';
import { nodeOptionsForLocalRun, resolveContainerEnv } from '../container.js';
import type { PodPlan } from './pod.js';

/** What the local run listens on, by the port the container would use. */
export interface LocalSettings {
  args: string[];
  env: Record<string, string>;
  /** Container port → local port on 127.0.0.1. */
  ports: Map<number, number>;
  /** The metrics endpoint, if the manager serves one. */
  metrics?: { url: string; secure: boolean };
  /** Changes made to the container's args, for the report. */
  notes: string[];
  /** Node flags to pass before the script. */
  nodeFlags: string[];
}

const BIND_FLAG = /^--(metrics|health-probe)-bind-address=(.*)$/;
const CERT_PATH_FLAG = /^--(metrics|webhook)-cert-path=/;
const WEBHOOK_PORT = 9443;

function portOf(address: string): number | undefined {
  if (address === '0' || address === '') return undefined;
  const port = Number(address.slice(address.lastIndexOf(':') + 1));
  return Number.isInteger(port) && port > 0 ? port : undefined;
}

export interface SettingsInput {
  plan: PodPlan;
  /** The API server the in-cluster config should reach. */
  server: URL;
  /** The directory holding token, ca.crt and namespace. */
  serviceAccountDir: string;
  podName: string;
  /** Whether this Node reads --max-old-space-size-percentage (22.21+). */
  nodeSupportsHeapPercentage: boolean;
  /** The environment to take PATH and HOME from. */
  baseEnv: NodeJS.ProcessEnv;
  /** Node flags for the process (the image's ENTRYPOINT's that this Node knows). Default none. */
  nodeFlags?: string[];
}

export async function localSettings(input: SettingsInput): Promise<LocalSettings> {
  const { plan } = input;
  const notes: string[] = [];
  const ports = new Map<number, number>();
  const args = plan.container.args ?? [];
  const listening = args
    .map((a) => BIND_FLAG.exec(a))
    .filter((m): m is RegExpExecArray => m !== null && portOf(m[2]!) !== undefined);
  const webhooks = plan.container.ports?.some((p) => p.containerPort === WEBHOOK_PORT) ?? false;
  // freePort never hands out the same port twice in a while, so these are distinct.
  const free: number[] = [];
  for (let i = 0; i < listening.length + (webhooks ? 1 : 0); i++) free.push(await freePort());
  let metrics: LocalSettings['metrics'];
  const secure = !args.some((a) => a === '--metrics-secure=false' || a === '--no-metrics-secure');
  const out: string[] = [];
  for (const arg of args) {
    const bind = BIND_FLAG.exec(arg);
    const port = bind ? portOf(bind[2]!) : undefined;
    if (bind && port !== undefined) {
      const local = free.shift()!;
      ports.set(port, local);
      out.push(`--${bind[1]}-bind-address=127.0.0.1:${local}`);
      if (bind[1] === 'metrics') metrics = { url: `${secure ? 'https' : 'http'}://127.0.0.1:${local}/metrics`, secure };
      notes.push(`${bind[1] === 'metrics' ? 'metrics' : 'health probes'} on 127.0.0.1:${local} (:${port} in the pod)`);
    } else if (CERT_PATH_FLAG.test(arg)) {
      notes.push(
        `dropped ${arg}: it names a Secret volume that is mounted only in the cluster (the manager makes a self-signed certificate instead)`,
      );
    } else {
      out.push(arg);
    }
  }
  if (webhooks) {
    const local = free.shift()!;
    ports.set(WEBHOOK_PORT, local);
    out.push(`--webhook-port=${local}`);
    notes.push(
      `webhook server on 127.0.0.1:${local} (:${WEBHOOK_PORT} in the pod; the API server's webhook configurations still point at the Service)`,
    );
  }

  const env = resolveContainerEnv(plan.container, {
    name: input.podName,
    namespace: plan.namespace,
    serviceAccountName: plan.serviceAccountName,
  });
  if (env.NODE_OPTIONS !== undefined && plan.memoryLimitBytes !== undefined) {
    env.NODE_OPTIONS = nodeOptionsForLocalRun(
      env.NODE_OPTIONS,
      plan.memoryLimitBytes,
      input.nodeSupportsHeapPercentage,
    );
  }
  const port = input.server.port || (input.server.protocol === 'https:' ? '443' : '80');
  return {
    args: out,
    env: {
      ...(input.baseEnv.PATH !== undefined ? { PATH: input.baseEnv.PATH } : {}),
      ...(input.baseEnv.HOME !== undefined ? { HOME: input.baseEnv.HOME } : {}),
      ...env,
      // What a pod has: the API server as a service address, and the service account mount (here a directory of ours).
      KUBERNETES_SERVICE_HOST: input.server.hostname.replace(/^\[|\]$/g, ''),
      KUBERNETES_SERVICE_PORT: port,
      KUBESCAFFOLD_SERVICE_ACCOUNT_DIR: input.serviceAccountDir,
    },
    ports,
    metrics,
    notes,
    nodeFlags: input.nodeFlags ?? [],
  };
}
