import { existsSync } from 'node:fs';
import { KubeConfigError, loadKubeConfig, type KubeConfig } from '@kubescaffold/runtime/clientcmd';
import { DiscoveryClient, type ServerVersion } from '@kubescaffold/runtime/discovery';
import { ApiError, RestClient } from '@kubescaffold/runtime/rest';
import { RESTMapper } from '@kubescaffold/runtime/restmapper';
import { ClusterError } from './errors.js';

export interface ConnectOptions {
  /** A kubeconfig file (else $KUBECONFIG, the in-cluster account, ~/.kube/config). */
  kubeconfig?: string;
  /** A context of the kubeconfig instead of its current-context. */
  context?: string;
  /** How long the first request may take before the cluster counts as unreachable (ms). Default 15000. */
  probeTimeoutMs?: number;
}

/** A connection to one API server: the client, a kind-to-resource mapper, and where it points. */
export interface Cluster {
  readonly kubeConfig: KubeConfig;
  readonly client: RestClient;
  readonly mapper: RESTMapper;
  readonly server: string;
  readonly context: string;
  readonly version: ServerVersion;
  close(): void;
}

/** Loads the kubeconfig, or explains which file is wrong and how to point at another. */
export function loadConfig(opts: ConnectOptions): KubeConfig {
  if (opts.kubeconfig && !existsSync(opts.kubeconfig)) {
    throw new ClusterError(`kubeconfig ${opts.kubeconfig} does not exist; pass an existing file with --kubeconfig`);
  }
  try {
    return loadKubeConfig({ kubeconfig: opts.kubeconfig, context: opts.context });
  } catch (e) {
    if (!(e instanceof KubeConfigError)) throw e;
    const start =
      'Start a cluster (kind, or `scaffold envtest start --kubeconfig-out FILE` for a local control plane) and pass its kubeconfig with --kubeconfig or KUBECONFIG';
    if (e.reason === 'NoConfiguration') {
      if (process.env.KUBECONFIG) throw new ClusterError(`${e.message}. ${start}`);
      throw new ClusterError(`no kubeconfig found: KUBECONFIG is not set and ~/.kube/config does not exist. ${start}`);
    }
    // The loader's message names the file, the context and the field: "kubeconfig /path: context ...".
    throw new ClusterError(
      `cannot use the ${e.message}. Pass a valid kubeconfig with --kubeconfig (or set KUBECONFIG), and a context it has with --context`,
    );
  }
}

/** Why a request to the server failed, in words a user can act on. */
export function explainConnectionError(e: unknown, server: string, context: string): string {
  const code = (e as { code?: string }).code;
  const where = `the cluster at ${server} (context "${context}")`;
  if (e instanceof ApiError) {
    if (e.code === 401)
      return `${where} rejected the kubeconfig's credentials (401 Unauthorized); refresh them or choose another context with --context`;
    if (e.code === 403) return `${where} forbids this user: ${e.message}`;
    return `${where} answered ${e.code}: ${e.message}`;
  }
  switch (code) {
    case 'ECONNREFUSED':
      return `no cluster answers at ${server} (connection refused; context "${context}"). Start the cluster (e.g. \`scaffold envtest start\` or kind), or choose another with --kubeconfig / --context`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `the host of ${server} cannot be resolved (context "${context}"); check the kubeconfig's server address or choose another with --kubeconfig / --context`;
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'EIDLETIMEOUT':
    case 'ABORT_ERR':
      return `no cluster answers at ${server} in time (context "${context}"); is it running and reachable from here?`;
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
    case 'CERT_HAS_EXPIRED':
      return `the TLS certificate of ${server} is not trusted (${code}); the kubeconfig's certificate-authority does not match this server (context "${context}")`;
    case 'ECONNRESET':
    case 'EPROTO':
      return `the connection to ${server} failed (${code}); is that the API server's HTTPS address? (context "${context}")`;
  }
  if ((e as Error).name === 'AbortError' || (e as Error).name === 'TimeoutError') {
    return `no cluster answers at ${server} in time (context "${context}"); is it running and reachable from here?`;
  }
  return `cannot reach ${where}: ${(e as Error).message}`;
}

/** Connects and checks that a cluster answers, so later failures are about objects, not the connection. */
export async function connect(opts: ConnectOptions = {}): Promise<Cluster> {
  const kc = loadConfig(opts);
  const server = kc.server;
  const context = kc.contextName ?? '(none)';
  let client: RestClient;
  try {
    client = new RestClient(kc, { userAgent: 'kubescaffold' });
  } catch (e) {
    throw new ClusterError(`cannot use context "${context}" of the kubeconfig: ${(e as Error).message}`);
  }
  let version: ServerVersion;
  try {
    version = await client.transport.requestJson<ServerVersion>({
      method: 'GET',
      path: '/version',
      signal: AbortSignal.timeout(opts.probeTimeoutMs ?? 15_000),
    });
  } catch (e) {
    client.close();
    throw new ClusterError(explainConnectionError(e, server, context));
  }
  return {
    kubeConfig: kc,
    client,
    mapper: new RESTMapper(new DiscoveryClient(client.transport)),
    server,
    context,
    version,
    close: () => client.close(),
  };
}
