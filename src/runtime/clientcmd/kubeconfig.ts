// Loading the cluster configuration (what a client needs to reach one API server as one user) from kubeconfig files
// or a pod's service account, in controller-runtime's order, and writing one back as a kubeconfig file. Plain data:
// nothing here loads @kubernetes/client-node.
import { homedir } from 'node:os';
import { delimiter, isAbsolute, join, resolve, sep } from 'node:path';
import { KubeConfigError } from './kubeconfig-error.js';
import { dump as dumpYaml } from 'js-yaml';
import { EXEC_CLUSTER_EXTENSION, loadKubeconfigFiles } from './kubeconfig-file.js';
import type { KubeConfig } from './kubeconfig-types.js';
import { inClusterConfig, type Environment } from './in-cluster.js';
import { fs } from '../internal/builtins.js';

const { existsSync } = fs;

/** Options of {@link loadKubeConfig}. */
export interface LoadKubeConfigOptions {
  /** A kubeconfig file to use instead of the search below (controller-runtime's --kubeconfig); it must exist. */
  kubeconfig?: string;
  /** The context to use instead of the file's current-context. Ignored in-cluster, as in controller-runtime. */
  context?: string;
  /**
   * The environment to read KUBECONFIG, KUBERNETES_SERVICE_HOST/PORT, POD_NAMESPACE, KUBESCAFFOLD_SERVICE_ACCOUNT_DIR
   * and HOME from. Default process.env.
   */
  env?: Environment;
}

/**
 * Loads the cluster configuration in controller-runtime's order:
 * 1. the `kubeconfig` option (a missing file is an error);
 * 2. $KUBECONFIG, a list of files separated by ':' (';' on Windows): missing and empty entries are skipped, a file
 *    listed twice is read once, and the files are merged as client-go merges them (the first file that defines a
 *    cluster, user or context by a name wins; the first non-empty current-context wins);
 * 3. the pod's service account ({@link inClusterConfig}), only when $KUBECONFIG is unset;
 * 4. ~/.kube/config.
 *
 * Finding nothing is an error (never a fallback to `http://localhost:8080`). Relative paths in a file resolve against
 * that file's directory. The chosen context is validated as client-go validates it, and every error names the file,
 * the context and the field. Throws {@link KubeConfigError}.
 */
export function loadKubeConfig(opts: LoadKubeConfigOptions = {}): KubeConfig {
  const env = opts.env ?? process.env;
  if (opts.kubeconfig) {
    const file = resolve(opts.kubeconfig);
    if (!existsSync(file)) throw new KubeConfigError(`kubeconfig ${opts.kubeconfig} does not exist`);
    return loadKubeconfigFiles([file], opts.context, `kubeconfig ${file}`);
  }
  const listed = env.KUBECONFIG;
  if (listed) {
    const files = [...new Set(listed.split(delimiter).filter((f) => f !== ''))].map((f) => resolve(f));
    const present = files.filter((f) => existsSync(f));
    if (present.length === 0) {
      throw new KubeConfigError(
        `no Kubernetes configuration found: none of the files in $KUBECONFIG exists (${files.join(', ')})`,
        'NoConfiguration',
      );
    }
    const source =
      present.length === 1 ? `kubeconfig ${present[0]}` : `kubeconfig ${present.join(', ')} (merged from $KUBECONFIG)`;
    return loadKubeconfigFiles(present, opts.context, source);
  }
  let inClusterProblem = '';
  if (env.KUBERNETES_SERVICE_HOST && env.KUBERNETES_SERVICE_PORT) {
    try {
      return inClusterConfig({ env });
    } catch (e) {
      // controller-runtime falls back to ~/.kube/config when the in-cluster configuration cannot be loaded.
      inClusterProblem = ` (KUBERNETES_SERVICE_HOST is set, but ${(e as Error).message})`;
    }
  }
  const home = env.HOME || homedir();
  const defaultFile = home ? join(home, '.kube', 'config') : undefined;
  if (defaultFile && existsSync(defaultFile))
    return loadKubeconfigFiles([defaultFile], opts.context, `kubeconfig ${defaultFile}`);
  throw new KubeConfigError(
    `no Kubernetes configuration found: set KUBECONFIG, create ~/.kube/config, or run inside a cluster${inClusterProblem}`,
    'NoConfiguration',
  );
}

/** The namespace of the configuration's context, or 'default' when it names none. In-cluster: the pod's namespace. */
export function currentNamespace(kc: KubeConfig): string {
  return kc.namespace || 'default';
}

/**
 * A kubeconfig file (YAML) holding just this configuration: one cluster, user and context, named after
 * `contextName` ('default' when unset), and that context current. File paths are written absolute (relative ones
 * resolve against the working directory), so the file can be read from anywhere; data is embedded base64-encoded.
 * loadKubeConfig reads the result back to an equal configuration (but for `source`).
 */
export function kubeConfigToYaml(kc: KubeConfig): string {
  const name = kc.contextName || 'default';
  const abs = (p: string | undefined): string | undefined => (p ? resolve(p) : undefined);
  const b64 = (s: string | undefined): string | undefined =>
    s === undefined ? undefined : Buffer.from(s, 'utf8').toString('base64');
  const tls = kc.tls ?? {};
  const auth = kc.auth ?? {};
  const exec = auth.exec;
  const cluster = compact({
    server: kc.server,
    'certificate-authority': abs(tls.caFile),
    'certificate-authority-data': b64(tls.caData),
    'insecure-skip-tls-verify': tls.insecureSkipTLSVerify || undefined,
    'tls-server-name': tls.serverName,
    'proxy-url': kc.proxyURL,
    'disable-compression': kc.disableCompression || undefined,
    extensions:
      exec?.clusterConfig !== undefined ? [{ name: EXEC_CLUSTER_EXTENSION, extension: exec.clusterConfig }] : undefined,
  });
  const imp = auth.impersonate;
  const user = compact({
    'client-certificate': abs(tls.certFile),
    'client-certificate-data': b64(tls.certData),
    'client-key': abs(tls.keyFile),
    'client-key-data': b64(tls.keyData),
    token: auth.token,
    tokenFile: abs(auth.tokenFile),
    username: auth.username,
    password: auth.password,
    as: imp?.user,
    'as-uid': imp?.uid,
    'as-groups': imp?.groups?.length ? [...imp.groups] : undefined,
    'as-user-extra': imp?.extra && Object.keys(imp.extra).length > 0 ? imp.extra : undefined,
    exec: exec
      ? compact({
          apiVersion: exec.apiVersion,
          command: isAbsolute(exec.command) || !exec.command.includes(sep) ? exec.command : resolve(exec.command),
          args: exec.args?.length ? [...exec.args] : undefined,
          env: exec.env?.length ? exec.env.map((e) => ({ name: e.name, value: e.value })) : undefined,
          installHint: exec.installHint,
          provideClusterInfo: exec.provideClusterInfo || undefined,
          interactiveMode: exec.interactiveMode,
        })
      : undefined,
  });
  return dumpYaml({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster }],
    users: [{ name, user }],
    contexts: [{ name, context: compact({ cluster: name, user: name, namespace: kc.namespace }) }],
    'current-context': name,
  });
}

/** The object without its undefined and empty-string fields, for the YAML. */
function compact<T extends Record<string, unknown>>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== '')) as Partial<T>;
}
