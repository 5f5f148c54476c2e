/**
 * The manager's identity in a local `--as-deployed` run: its ServiceAccount, as a pod has it. A token from the
 * TokenRequest API (bound to the API server's audience, short-lived) is written with the CA and the namespace into a
 * directory laid out like /var/run/secrets/kubernetes.io/serviceaccount, and renewed as the kubelet renews a projected
 * token: once 80% of its lifetime has passed. The runtime re-reads the file when it rotates.
 */
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiError, objectPath, ServiceAccounts, type KubeConfig, type RestClient } from '@kubescaffold/runtime/rest';
import { ClusterError } from '../errors.js';

/** The shortest lifetime the API server grants (it raises anything shorter to 10 minutes). */
export const TOKEN_SECONDS = 600;

interface TokenRequestStatus {
  status?: { token?: string; expirationTimestamp?: string };
}

/** Requests a token for `namespace/serviceAccount`; says plainly when the cluster has no TokenRequest API. */
export async function requestToken(
  client: RestClient,
  namespace: string,
  serviceAccount: string,
  seconds = TOKEN_SECONDS,
): Promise<{ token: string; expires: Date }> {
  let res: TokenRequestStatus;
  try {
    res = await client.transport.requestJson<TokenRequestStatus>({
      method: 'POST',
      path: objectPath(ServiceAccounts, namespace, serviceAccount, 'token'),
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: seconds } },
    });
  } catch (e) {
    if (e instanceof ApiError && (e.code === 404 || e.code === 405)) {
      throw new ClusterError(
        `the cluster does not offer the TokenRequest API (serviceaccounts/token, ${e.code}), so the manager cannot be given its ServiceAccount's identity; it needs Kubernetes 1.22 or later`,
        { cause: e },
      );
    }
    if (e instanceof ApiError && e.code === 403) {
      throw new ClusterError(
        `your kubeconfig's user may not create tokens for ServiceAccount ${namespace}/${serviceAccount} (create serviceaccounts/token is forbidden); use an admin kubeconfig`,
        { cause: e },
      );
    }
    throw e;
  }
  const token = res.status?.token;
  if (!token) throw new ClusterError(`the TokenRequest for ${namespace}/${serviceAccount} returned no token`);
  const expires = res.status?.expirationTimestamp
    ? new Date(res.status.expirationTimestamp)
    : new Date(Date.now() + seconds * 1000);
  return { token, expires };
}

/** The CA a pod's ca.crt would hold: the kubeconfig's (PEM), or nothing when it trusts the system's. */
function caPem(kc: KubeConfig): string | undefined {
  const data = kc.tls?.caData;
  if (data === undefined) return undefined;
  return data.includes('-----BEGIN') ? data : Buffer.from(data, 'base64').toString('utf8');
}

function writeAtomically(file: string, content: string): void {
  const tmp = `${file}.tmp`;
  writeFileSync(tmp, content, { mode: 0o600 });
  renameSync(tmp, file);
}

export interface ServiceAccountMountOptions {
  client: RestClient;
  kubeConfig: KubeConfig;
  namespace: string;
  serviceAccount: string;
  /** Called when renewing fails (the old token still works until it expires). */
  onRenewError?: (e: unknown) => void;
}

/** A service account directory kept current until stop(). */
export class ServiceAccountMount {
  readonly dir: string;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  private constructor(private readonly opts: ServiceAccountMountOptions) {
    this.dir = mkdtempSync(join(tmpdir(), 'kubescaffold-serviceaccount-'));
  }

  /** Writes token, ca.crt and namespace, and starts renewing the token. */
  static async create(opts: ServiceAccountMountOptions): Promise<ServiceAccountMount> {
    const mount = new ServiceAccountMount(opts);
    try {
      writeFileSync(join(mount.dir, 'namespace'), opts.namespace);
      const ca = caPem(opts.kubeConfig);
      if (ca !== undefined) writeFileSync(join(mount.dir, 'ca.crt'), ca);
      await mount.renew();
    } catch (e) {
      mount.stop();
      throw e;
    }
    return mount;
  }

  private async renew(): Promise<void> {
    const { token, expires } = await requestToken(this.opts.client, this.opts.namespace, this.opts.serviceAccount);
    writeAtomically(join(this.dir, 'token'), token);
    this.schedule(expires);
  }

  private schedule(expires: Date): void {
    if (this.stopped) return;
    const lifetime = Math.max(expires.getTime() - Date.now(), 0);
    this.timer = setTimeout(() => {
      this.renew().catch((e: unknown) => {
        this.opts.onRenewError?.(e);
        // Try again soon; the current token stays valid until it expires.
        this.schedule(new Date(Date.now() + 30_000 / 0.8));
      });
    }, lifetime * 0.8);
    this.timer.unref();
  }

  /** Stops renewing and removes the directory. */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    rmSync(this.dir, { recursive: true, force: true });
  }
}
