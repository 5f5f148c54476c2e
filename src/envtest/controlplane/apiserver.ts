/** kube-apiserver for one control plane, configured like controller-runtime's envtest. */
import { readFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { SupervisedProcess } from './process.js';
import type { AdminClient } from './request.js';
import { pollUntil } from './wait.js';

/** File names inside the certificate directory. apiserver.crt/.key are what --cert-dir looks for. */
export const CERT_FILES = {
  servingCert: 'apiserver.crt',
  servingKey: 'apiserver.key',
  clientCA: 'client-cert-auth-ca.crt',
  saKey: 'sa-signer.key',
  saPub: 'sa-signer.pub',
} as const;

export interface APIServerConfig {
  binary: string;
  certDir: string;
  port: number;
  etcdURL: string;
  /** Extra or overriding flags, without the leading dashes: { 'feature-gates': 'X=true' }. */
  flags?: Record<string, string>;
  attachOutput?: boolean;
}

/** The flag list: envtest's defaults (controlplane/apiserver.go), then the user's overrides; sorted by name. */
export function apiserverArgs(c: APIServerConfig, advertiseAddress?: string): string[] {
  const flags: Record<string, string> = {
    'allow-privileged': 'true',
    'authorization-mode': 'RBAC',
    'bind-address': '127.0.0.1',
    'cert-dir': c.certDir,
    'client-ca-file': join(c.certDir, CERT_FILES.clientCA),
    // No controller-manager runs to create the default ServiceAccount that this plugin would demand.
    'disable-admission-plugins': 'ServiceAccount',
    'etcd-servers': c.etcdURL,
    'secure-port': String(c.port),
    'service-account-issuer': `https://127.0.0.1:${c.port}/`,
    'service-account-key-file': join(c.certDir, CERT_FILES.saPub),
    'service-account-signing-key-file': join(c.certDir, CERT_FILES.saKey),
    'service-cluster-ip-range': '10.0.0.0/24',
  };
  if (advertiseAddress) flags['advertise-address'] = advertiseAddress;
  Object.assign(flags, c.flags);
  return Object.keys(flags)
    .sort()
    .map((k) => `--${k}=${flags[k]}`);
}

/**
 * kube-apiserver derives its advertise address from the default route and refuses loopback
 * (controller-runtime#1562). Without a default route, name a local non-loopback address ourselves;
 * it is only written into the `kubernetes` Endpoints, nothing dials it.
 */
export function advertiseAddressIfNeeded(): string | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    const routes = readFileSync('/proc/net/route', 'utf8').split('\n').slice(1);
    if (routes.some((line) => line.split(/\s+/)[1] === '00000000')) return undefined;
  } catch {
    return undefined;
  }
  for (const addrs of Object.values(networkInterfaces())) {
    for (const a of addrs ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return '192.0.2.1'; // TEST-NET-1: never routed, accepted by Endpoints validation
}

export class APIServer {
  private constructor(
    readonly process: SupervisedProcess,
    /** The command-line flags it runs with, `--name=value`, sorted by name. */
    readonly args: readonly string[],
  ) {}

  /** Starts kube-apiserver and waits until /healthz answers 200 to the admin user. */
  static async start(c: APIServerConfig, admin: AdminClient, timeoutMs: number): Promise<APIServer> {
    const args = apiserverArgs(c, advertiseAddressIfNeeded());
    const proc = SupervisedProcess.spawn({
      name: 'kube-apiserver',
      command: c.binary,
      args,
      attachOutput: c.attachOutput,
    });
    try {
      await pollUntil(async () => (await admin.request('GET', '/healthz', undefined, 2000)).status === 200, {
        what: `kube-apiserver at https://127.0.0.1:${c.port}/healthz`,
        timeoutMs,
        process: proc,
      });
    } catch (err) {
      await proc.stop(5000);
      throw err;
    }
    return new APIServer(proc, args);
  }

  stop(timeoutMs?: number): Promise<void> {
    return this.process.stop(timeoutMs);
  }
}
