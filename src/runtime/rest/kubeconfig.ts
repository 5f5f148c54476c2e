// The cluster configuration: what a client needs to reach one API server as one user (client-go's rest.Config), and
// the loaders that build it from kubeconfig files (client-go's clientcmd) or a pod's service account
// (rest.InClusterConfig), in controller-runtime's order. Plain data: nothing here loads @kubernetes/client-node, and
// the YAML parser is loaded only when a kubeconfig file is actually read.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, isAbsolute, join, resolve, sep } from 'node:path';
import { KubeConfigError } from './kubeconfig_error.js';
import { EXEC_CLUSTER_EXTENSION, loadKubeconfigFiles, yamlModule } from './kubeconfig_file.js';

/**
 * How to reach one API server as one user: client-go's rest.Config as plain, readonly data. {@link loadKubeConfig}
 * builds one from kubeconfig files or the in-cluster service account; tests and tools may write one by hand:
 *
 * ```ts
 * const kc: KubeConfig = { server: 'https://127.0.0.1:6443', tls: { caFile: '/tmp/ca.crt' }, auth: { token: 't' } };
 * ```
 *
 * Pass it to `newClient(kc)` or `new Manager({ kubeConfig: kc })`; {@link kubeConfigToYaml} writes it back as a
 * kubeconfig file.
 */
export interface KubeConfig {
  /** The API server's URL: `https://host:port`, optionally with a path prefix. `http://` sends no TLS material. */
  readonly server: string;
  /** The kubeconfig context this was loaded from; names the context in messages and in {@link kubeConfigToYaml}. */
  readonly contextName?: string;
  /** The context's namespace; in-cluster, $POD_NAMESPACE or the service account's. See {@link currentNamespace}. */
  readonly namespace?: string;
  /** How to verify the server, and the client certificate to present to it. */
  readonly tls?: KubeConfigTLS;
  /** Who to authenticate as. */
  readonly auth?: KubeConfigAuth;
  /** An `http://`, `https://` or `socks5://` proxy to reach the server through (the cluster's proxy-url). */
  readonly proxyURL?: string;
  /**
   * Where this configuration came from, as messages name it: `kubeconfig /home/u/.kube/config`, the files of
   * $KUBECONFIG, or `in-cluster service account /var/run/secrets/kubernetes.io/serviceaccount`. Unset when built by hand.
   */
  readonly source?: string;
}

/**
 * TLS material. Files are absolute paths (loadKubeConfig resolves relative ones against their kubeconfig's directory);
 * data is PEM text. When both a file and its data are given, the data is used (the loader refuses both, as client-go).
 */
export interface KubeConfigTLS {
  /** PEM certificates of the CAs that sign the server's certificate (certificate-authority-data, decoded). */
  readonly caData?: string;
  /** A file of PEM CA certificates (certificate-authority). Read once, on the first request. */
  readonly caFile?: string;
  /** The client certificate in PEM (client-certificate-data, decoded). Needs keyData or keyFile. */
  readonly certData?: string;
  /** A file holding the client certificate (client-certificate); re-read every 5 minutes, as client-go does. */
  readonly certFile?: string;
  /** The client certificate's private key in PEM (client-key-data, decoded). */
  readonly keyData?: string;
  /** A file holding the client certificate's key (client-key); re-read with certFile. */
  readonly keyFile?: string;
  /** Do not verify the server's certificate (insecure-skip-tls-verify). Refused together with a CA, as client-go. */
  readonly insecureSkipTLSVerify?: boolean;
  /** The name to verify the server's certificate against and send as SNI (tls-server-name), instead of the host. */
  readonly serverName?: string;
}

/**
 * Credentials. At most one of token (or tokenFile) and username/password; a client certificate (in {@link KubeConfigTLS})
 * may accompany either. An exec plugin is used only when none of those is set, as in client-go.
 */
export interface KubeConfigAuth {
  /** A bearer token. With tokenFile too, the file wins and this is the fallback when it cannot be read (client-go). */
  readonly token?: string;
  /** A file holding a bearer token, re-read at most once a minute and after a 401 (a rotated service account token). */
  readonly tokenFile?: string;
  /** Basic authentication's user name. */
  readonly username?: string;
  /** Basic authentication's password. */
  readonly password?: string;
  /** A credential plugin that prints an ExecCredential (client.authentication.k8s.io). */
  readonly exec?: ExecConfig;
  /** Act as another user (the kubeconfig's `as`, `as-uid`, `as-groups`, `as-user-extra`). */
  readonly impersonate?: Impersonation;
}

/** The exec credential plugins' API versions this runtime speaks. */
export type ExecAPIVersion = 'client.authentication.k8s.io/v1' | 'client.authentication.k8s.io/v1beta1';

/** Whether an exec plugin may use the terminal: never, when stdin is a terminal, or always (failing without one). */
export type ExecInteractiveMode = 'Never' | 'IfAvailable' | 'Always';

/** An exec credential plugin (the kubeconfig user's `exec`), as client-go runs it. */
export interface ExecConfig {
  /** The ExecCredential version the plugin reads and writes. */
  readonly apiVersion: ExecAPIVersion;
  /** The executable: a path (resolved against the kubeconfig's directory when relative) or a name found on $PATH. */
  readonly command: string;
  /** Its arguments. */
  readonly args?: readonly string[];
  /** Variables added to the plugin's environment (which is otherwise this process's). */
  readonly env?: readonly ExecEnvVar[];
  /** Shown to the user when the command cannot be run, e.g. how to install it. */
  readonly installHint?: string;
  /**
   * Whether the plugin may read stdin: only then is stdin passed to it. Required for v1; v1beta1 defaults to
   * IfAvailable (client-go's defaulting).
   */
  readonly interactiveMode?: ExecInteractiveMode;
  /** Send the cluster's server and CA to the plugin in KUBERNETES_EXEC_INFO's spec.cluster. */
  readonly provideClusterInfo?: boolean;
  /** The cluster's `client.authentication.k8s.io/exec` extension, sent as spec.cluster.config. */
  readonly clusterConfig?: unknown;
}

/** One environment variable for an exec plugin. */
export interface ExecEnvVar {
  /** The variable's name. */
  readonly name: string;
  /** Its value. */
  readonly value: string;
}

/** Impersonation headers sent with every request. */
export interface Impersonation {
  /** The user to act as (Impersonate-User). */
  readonly user: string;
  /** Its UID (Impersonate-Uid). */
  readonly uid?: string;
  /** Its groups (Impersonate-Group). */
  readonly groups?: readonly string[];
  /** Extra fields (Impersonate-Extra-<key>). */
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

/** Where a pod's service account is mounted. */
export const DEFAULT_SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/**
 * The environment variable that moves the in-cluster service account directory (token, ca.crt, namespace) away from
 * {@link DEFAULT_SERVICE_ACCOUNT_DIR}: for tests, and for running a manager outside its pod as if deployed.
 */
export const SERVICE_ACCOUNT_DIR_ENV = 'KUBESCAFFOLD_SERVICE_ACCOUNT_DIR';

/** Environment variables as the loaders read them. */
export type Environment = Readonly<Record<string, string | undefined>>;

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
 * Finding nothing is an error (never a fallback to http://localhost:8080). Relative paths in a file resolve against
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
      throw new KubeConfigError(`no Kubernetes configuration found: none of the files in $KUBECONFIG exists (${files.join(', ')})`, 'NoConfiguration');
    }
    const source = present.length === 1 ? `kubeconfig ${present[0]}` : `kubeconfig ${present.join(', ')} (merged from $KUBECONFIG)`;
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
  if (defaultFile && existsSync(defaultFile)) return loadKubeconfigFiles([defaultFile], opts.context, `kubeconfig ${defaultFile}`);
  throw new KubeConfigError(
    `no Kubernetes configuration found: set KUBECONFIG, create ~/.kube/config, or run inside a cluster${inClusterProblem}`,
    'NoConfiguration',
  );
}

/** Options of {@link inClusterConfig}. */
export interface InClusterConfigOptions {
  /** Where to read KUBERNETES_SERVICE_HOST/PORT, POD_NAMESPACE and KUBESCAFFOLD_SERVICE_ACCOUNT_DIR. Default process.env. */
  env?: Environment;
}

/** The service account directory: $KUBESCAFFOLD_SERVICE_ACCOUNT_DIR, else {@link DEFAULT_SERVICE_ACCOUNT_DIR}. */
export function serviceAccountDir(env: Environment = process.env): string {
  return env[SERVICE_ACCOUNT_DIR_ENV] || DEFAULT_SERVICE_ACCOUNT_DIR;
}

/**
 * The configuration of a pod's service account, as client-go's rest.InClusterConfig: the server at
 * https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT, the CA in ca.crt (system CAs when it is missing, as
 * client-go), and the token file, which the transport re-reads as the kubelet rotates it. The namespace is
 * $POD_NAMESPACE, else the service account's namespace file. The directory is {@link serviceAccountDir}.
 */
export function inClusterConfig(opts: InClusterConfigOptions = {}): KubeConfig {
  const env = opts.env ?? process.env;
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (!host || !port) {
    throw new KubeConfigError('not running in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set', 'NoConfiguration');
  }
  const dir = serviceAccountDir(env);
  const tokenFile = join(dir, 'token');
  try {
    if (statSync(tokenFile).isDirectory()) throw new Error(`${tokenFile} is a directory`);
    readFileSync(tokenFile);
  } catch (e) {
    throw new KubeConfigError(`the service account token ${tokenFile} cannot be read: ${(e as Error).message}`, 'Invalid', { cause: e });
  }
  const caFile = join(dir, 'ca.crt');
  let namespace = env.POD_NAMESPACE || undefined;
  if (!namespace) {
    try {
      namespace = readFileSync(join(dir, 'namespace'), 'utf8').trim() || undefined;
    } catch {
      // No namespace file: currentNamespace answers "default", as client-go.
    }
  }
  const bracketed = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return {
    server: `https://${bracketed}:${port}`,
    namespace,
    tls: existsSync(caFile) ? { caFile } : {},
    auth: { tokenFile },
    source: `in-cluster service account ${dir}`,
  };
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
  const b64 = (s: string | undefined): string | undefined => (s === undefined ? undefined : Buffer.from(s, 'utf8').toString('base64'));
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
    extensions: exec?.clusterConfig !== undefined ? [{ name: EXEC_CLUSTER_EXTENSION, extension: exec.clusterConfig }] : undefined,
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
  return yamlModule().dump({
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
