// Reading kubeconfig files as client-go's clientcmd does (loader.go, client_config.go, validation.go): parse each file,
// merge them (the first definition of a name wins), choose the context, validate what it references, and turn it into
// a KubeConfig with absolute paths.
import { dirname, isAbsolute, join, sep } from 'node:path';
import type {
  ExecAPIVersion,
  ExecConfig,
  ExecEnvVar,
  ExecInteractiveMode,
  Impersonation,
  KubeConfig,
  KubeConfigAuth,
  KubeConfigTLS,
} from './kubeconfig-types.js';
import { KubeConfigError } from './kubeconfig-error.js';
// js-yaml, not the `yaml` package the CLI uses: loading that costs an operator 8–10 MiB of RSS, js-yaml under 1, and a
// kubeconfig needs no more than js-yaml reads and writes. A static import, so that a bundler sees it.
import { load as loadYaml } from 'js-yaml';
import { MAX_KUBECONFIG_BYTES, yamlBoundsProblem } from './yaml-bounds.js';
import { fs } from '../internal/builtins.js';
import { isObject } from '../json/index.js';

const { readFileSync } = fs;

/** The cluster extension whose value exec plugins receive as spec.cluster.config (client-go's clusterExtensionKey). */
export const EXEC_CLUSTER_EXTENSION = 'client.authentication.k8s.io/exec';

const EXEC_API_VERSIONS: readonly string[] = [
  'client.authentication.k8s.io/v1',
  'client.authentication.k8s.io/v1beta1',
];
const INTERACTIVE_MODES: readonly string[] = ['Never', 'IfAvailable', 'Always'];
const PROXY_SCHEMES = ['http:', 'https:', 'socks5:'];

type Obj = Record<string, unknown>;

/** One named cluster, user or context, and the file that defined it. */
interface Entry {
  readonly name: string;
  readonly body: Obj;
  /** The file that defined it, or what the text came from ("in Secret ns/name (key kubeconfig)"), for messages. */
  readonly file: string;
  /** Where its relative paths resolve; undefined for text that may name no local file and run no plugin. */
  readonly dir: string | undefined;
}

interface Merged {
  readonly clusters: Map<string, Entry>;
  readonly users: Map<string, Entry>;
  readonly contexts: Map<string, Entry>;
  currentContext: string;
}

/**
 * Loads and merges kubeconfig files (absolute paths, all existing), picks `context` or the current-context, validates
 * it and returns its configuration. `source` names the files in messages.
 */
export function loadKubeconfigFiles(files: readonly string[], context: string | undefined, source: string): KubeConfig {
  const merged: Merged = { clusters: new Map(), users: new Map(), contexts: new Map(), currentContext: '' };
  for (const file of files) mergeFile(merged, file);
  return resolveContext(merged, files.length, context, source);
}

/** Options of {@link kubeConfigFromYaml}. */
export interface KubeConfigFromYamlOptions {
  /** What the text came from, for messages: `in Secret fleet/east (key kubeconfig)`. */
  source: string;
  /** The context to use instead of the text's current-context. */
  context?: string;
  /**
   * Allow the text to name local files (certificate-authority, client-certificate, client-key, tokenFile; relative
   * ones resolve against the working directory) and to run an exec credential plugin. Default false: a kubeconfig
   * from a Secret must not read the operator's own files (its service account token, to send to a server of the
   * Secret's choosing) or run commands in its pod; embed certificates as *-data and credentials as a token.
   */
  allowLocalReferences?: boolean;
}

/**
 * A kubeconfig given as text (a Secret's data), read as loadKubeconfigFiles reads one file: its current-context (or
 * `context`), validated. Throws KubeConfigError naming `source` and what is wrong.
 */
export function kubeConfigFromYaml(text: string, opts: KubeConfigFromYamlOptions): KubeConfig {
  const merged: Merged = { clusters: new Map(), users: new Map(), contexts: new Map(), currentContext: '' };
  mergeText(merged, text, opts.source, opts.allowLocalReferences ? process.cwd() : undefined);
  return resolveContext(merged, 1, opts.context, `kubeconfig ${opts.source}`);
}

function mergeFile(into: Merged, file: string): void {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new KubeConfigError(`kubeconfig ${file}: cannot be read: ${(e as Error).message}`, 'Invalid', { cause: e });
  }
  mergeText(into, text, file, dirname(file));
}

function mergeText(into: Merged, text: string, file: string, dir: string | undefined): void {
  if (Buffer.byteLength(text) > MAX_KUBECONFIG_BYTES) {
    throw new KubeConfigError(
      `kubeconfig ${file}: larger than ${MAX_KUBECONFIG_BYTES / 1048576} MiB, which no kubeconfig is; check that KUBECONFIG names the right file`,
    );
  }
  let doc: unknown;
  try {
    doc = loadYaml(text);
  } catch (e) {
    // A document nested deeper than the parser's stack ends in a RangeError from inside js-yaml.
    const why = e instanceof RangeError ? 'nested too deeply' : ((e as Error).message.split('\n')[0] ?? '').trim();
    throw new KubeConfigError(`kubeconfig ${file}: not valid YAML: ${why}`, 'Invalid', { cause: e });
  }
  const unbounded = yamlBoundsProblem(doc);
  if (unbounded !== undefined) throw new KubeConfigError(`kubeconfig ${file}: refused: ${unbounded}`);
  if (doc === null || doc === undefined) return; // An empty file is an empty configuration, as in client-go.
  if (!isObject(doc))
    throw new KubeConfigError(
      `kubeconfig ${file}: not a kubeconfig (expected a mapping with clusters, users and contexts)`,
    );
  const lists: Array<[keyof Omit<Merged, 'currentContext'>, string]> = [
    ['clusters', 'cluster'],
    ['users', 'user'],
    ['contexts', 'context'],
  ];
  for (const [list, item] of lists) {
    const entries = doc[list];
    if (entries === undefined || entries === null) continue;
    if (!Array.isArray(entries)) throw new KubeConfigError(`kubeconfig ${file}: ${list} is not a list`);
    const seen = new Set<string>();
    entries.forEach((e: unknown, i) => {
      if (!isObject(e) || typeof e.name !== 'string' || e.name === '')
        throw new KubeConfigError(`kubeconfig ${file}: ${list}[${i}] has no name`);
      const body = e[item] ?? {};
      if (!isObject(body))
        throw new KubeConfigError(`kubeconfig ${file}: ${item} "${e.name}": ${item} is not a mapping`);
      // client-go's conversion refuses a name listed twice in one file.
      if (seen.has(e.name)) throw new KubeConfigError(`kubeconfig ${file}: ${item} "${e.name}" is defined twice`);
      seen.add(e.name);
      // Across files, the first file to define a name wins, whole: nothing of a later definition is merged in.
      if (!into[list].has(e.name)) into[list].set(e.name, { name: e.name, body, file, dir });
    });
  }
  const current = doc['current-context'];
  if (current !== undefined && current !== null && typeof current !== 'string') {
    throw new KubeConfigError(`kubeconfig ${file}: current-context is not a string`);
  }
  // The first file with a non-empty current-context wins.
  if (!into.currentContext && current) into.currentContext = current;
}

const names = (m: Map<string, Entry>): string => [...m.keys()].join(', ') || 'none';

function resolveContext(m: Merged, fileCount: number, requested: string | undefined, source: string): KubeConfig {
  if (m.clusters.size === 0 && m.users.size === 0 && m.contexts.size === 0) {
    throw new KubeConfigError(`${source}: the configuration is empty: it defines no clusters, users or contexts`);
  }
  const contextName = requested || m.currentContext;
  if (!contextName) {
    throw new KubeConfigError(
      `${source}: no context chosen: current-context is not set; choose one of the contexts (${names(m.contexts)})`,
    );
  }
  const ctx = m.contexts.get(contextName);
  if (!ctx) {
    const which = requested ? `context "${contextName}"` : `current-context "${contextName}"`;
    throw new KubeConfigError(`${source}: ${which} not found (contexts: ${names(m.contexts)})`);
  }
  const fileDoesNot = fileCount === 1 ? 'the file does not define' : 'none of the files defines';
  const problems: string[] = [];
  const at = (e: Entry): Fields => new Fields(e, contextName, problems);

  // The context: which cluster and user, and the namespace.
  const c = at(ctx);
  const clusterName = c.str('cluster');
  const userName = c.str('user');
  const namespace = c.str('namespace');
  const ctxPrefix = `kubeconfig ${ctx.file}: context "${contextName}"`;
  if (!clusterName) problems.push(`${ctxPrefix} names no cluster (field cluster)`);
  if (!userName) problems.push(`${ctxPrefix} names no user (field user)`);
  if (namespace && !isDNS1123Label(namespace)) {
    problems.push(
      `${ctxPrefix} has namespace "${namespace}", which is not a valid namespace name (a DNS-1123 label: lower case letters, digits and '-', at most 63)`,
    );
  }
  const cluster = clusterName ? m.clusters.get(clusterName) : undefined;
  const user = userName ? m.users.get(userName) : undefined;
  if (clusterName && !cluster)
    problems.push(`${ctxPrefix} names cluster "${clusterName}", which ${fileDoesNot} (clusters: ${names(m.clusters)})`);
  if (userName && !user)
    problems.push(`${ctxPrefix} names user "${userName}", which ${fileDoesNot} (users: ${names(m.users)})`);

  const server = cluster ? clusterInfo(at(cluster)) : undefined;
  const auth = user ? userInfo(at(user), server?.execConfig) : undefined;
  if (problems.length > 0) throw new KubeConfigError(problems.join('\n'));
  if (!server) throw new KubeConfigError(`${ctxPrefix}: no cluster`); // unreachable: a problem was recorded

  // client-go reads the user's credentials and the server's TLS settings only for an https server.
  const secure = new URL(server.server).protocol === 'https:';
  const tls = secure ? prune({ ...server.tls, ...auth?.clientCert }) : {};
  return prune({
    server: server.server,
    contextName,
    namespace: namespace || undefined,
    tls: Object.keys(tls).length > 0 ? tls : undefined,
    auth: secure && auth && Object.keys(auth.auth).length > 0 ? auth.auth : undefined,
    proxyURL: server.proxyURL,
    disableCompression: server.disableCompression,
    source,
  }) as KubeConfig;
}

/** Typed reads of one entry's fields, recording what is wrong with them. */
class Fields {
  readonly prefix: string;
  constructor(
    readonly entry: Entry,
    readonly context: string,
    private readonly problems: string[],
  ) {
    this.prefix = `kubeconfig ${entry.file}: context "${context}"`;
  }

  problem(what: string): void {
    this.problems.push(`${this.prefix}: ${what}`);
  }

  str(key: string, body: Obj = this.entry.body, label = key): string | undefined {
    const v = body[key];
    if (v === undefined || v === null || v === '') return undefined;
    if (typeof v !== 'string') {
      this.problem(`${label} is not a string`);
      return undefined;
    }
    return v;
  }

  bool(key: string, body: Obj = this.entry.body, label = key): boolean | undefined {
    const v = body[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'boolean') {
      this.problem(`${label} is not true or false`);
      return undefined;
    }
    return v;
  }

  strings(key: string, body: Obj = this.entry.body, label = key): string[] | undefined {
    const v = body[key];
    if (v === undefined || v === null) return undefined;
    if (!Array.isArray(v) || v.some((s) => typeof s !== 'string')) {
      this.problem(`${label} is not a list of strings`);
      return undefined;
    }
    return v as string[];
  }

  /** A *-data field: base64 in the file, PEM text in the KubeConfig. */
  data(key: string, label = key): string | undefined {
    const v = this.str(key, this.entry.body, label);
    if (v === undefined) return undefined;
    const compact = v.replace(/[\r\n]/g, '');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 !== 0) {
      this.problem(`${label} is not valid base64`);
      return undefined;
    }
    return Buffer.from(compact, 'base64').toString('utf8');
  }

  /** A file path field, resolved against the directory of the file that defined the entry. */
  path(key: string, label = key): string | undefined {
    const v = this.str(key, this.entry.body, label);
    if (v === undefined) return undefined;
    if (this.entry.dir === undefined) {
      this.problem(
        `${label} names the local file ${v}, which this kubeconfig may not: embed its content instead (${key === 'tokenFile' ? 'token' : `${key}-data`})`,
      );
      return undefined;
    }
    return resolveAgainst(this.entry.dir, v);
  }

  /** Records a problem unless `file` can be read. */
  readable(file: string, label: string): void {
    try {
      readFileSync(file);
    } catch (e) {
      this.problem(`${label} ${file} cannot be read: ${(e as Error).message}`);
    }
  }
}

function resolveAgainst(dir: string, p: string): string {
  return isAbsolute(p) ? p : join(dir, p);
}

interface ClusterInfo {
  server: string;
  tls: KubeConfigTLS;
  proxyURL?: string;
  disableCompression?: boolean;
  execConfig?: unknown;
}

function clusterInfo(f: Fields): ClusterInfo | undefined {
  const name = f.entry.name;
  const label = (field: string): string => `cluster "${name}": ${field}`;
  const server = f.str('server', undefined, label('server'));
  if (!server) {
    f.problem(`cluster "${name}" has no server (field server)`);
  } else if (!/^https?:\/\//i.test(server) || !URL.canParse(server)) {
    f.problem(`cluster "${name}" has server "${server}", which is not an http:// or https:// URL`);
  }
  const proxy = f.str('proxy-url', undefined, label('proxy-url'));
  if (proxy) {
    const scheme = URL.canParse(proxy) ? new URL(proxy).protocol : undefined;
    if (!scheme) f.problem(`cluster "${name}" has proxy-url "${proxy}", which is not a URL`);
    else if (!PROXY_SCHEMES.includes(scheme)) {
      f.problem(
        `cluster "${name}" has proxy-url "${proxy}" with the unsupported scheme "${scheme.slice(0, -1)}"; use http, https or socks5`,
      );
    }
  }
  const caFile = f.path('certificate-authority', label('certificate-authority'));
  const caData = f.data('certificate-authority-data', label('certificate-authority-data'));
  if (caFile && caData)
    f.problem(`cluster "${name}" sets both certificate-authority and certificate-authority-data; keep one`);
  if (caFile) f.readable(caFile, label('certificate-authority'));
  const insecure = f.bool('insecure-skip-tls-verify', undefined, label('insecure-skip-tls-verify'));
  if (insecure && (caFile || caData)) {
    f.problem(
      `cluster "${name}" sets insecure-skip-tls-verify together with ${caFile ? 'certificate-authority' : 'certificate-authority-data'}; a CA cannot be used with the insecure flag, remove one`,
    );
  }
  const serverName = f.str('tls-server-name', undefined, label('tls-server-name'));
  const disableCompression = f.bool('disable-compression', undefined, label('disable-compression')) || undefined;
  let execConfig: unknown;
  const extensions = f.entry.body.extensions;
  if (Array.isArray(extensions)) {
    for (const ext of extensions) if (isObject(ext) && ext.name === EXEC_CLUSTER_EXTENSION) execConfig = ext.extension;
  }
  if (!server) return undefined;
  return {
    server,
    tls: prune({ caFile, caData, insecureSkipTLSVerify: insecure || undefined, serverName }),
    proxyURL: proxy,
    disableCompression,
    execConfig,
  };
}

interface UserInfo {
  clientCert: Pick<KubeConfigTLS, 'certData' | 'certFile' | 'keyData' | 'keyFile'>;
  auth: KubeConfigAuth;
}

function userInfo(f: Fields, execClusterConfig?: unknown): UserInfo {
  const name = f.entry.name;
  const body = f.entry.body;
  const label = (field: string): string => `user "${name}": ${field}`;
  const problem = (what: string): void => f.problem(`user "${name}" ${what}`);

  const provider = body['auth-provider'];
  if (provider !== undefined && provider !== null) {
    const which = isObject(provider) && typeof provider.name === 'string' ? ` "${provider.name}"` : '';
    problem(
      `uses auth-provider${which}, which kubescaffold does not support (client-go removed its gcp and azure providers too): use an exec credential plugin instead, such as gke-gcloud-auth-plugin, kubelogin or \`aws eks get-token\``,
    );
  }

  const certFile = f.path('client-certificate', label('client-certificate'));
  const certData = f.data('client-certificate-data', label('client-certificate-data'));
  const keyFile = f.path('client-key', label('client-key'));
  const keyData = f.data('client-key-data', label('client-key-data'));
  if (certFile || certData) {
    if (certFile && certData) problem('sets both client-certificate and client-certificate-data; keep one');
    if (keyFile && keyData) problem('sets both client-key and client-key-data; keep one');
    if (!keyFile && !keyData) problem('has a client certificate but no key: set client-key or client-key-data');
    if (certFile) f.readable(certFile, label('client-certificate'));
    if (keyFile) f.readable(keyFile, label('client-key'));
  }

  const token = f.str('token', undefined, label('token'));
  const tokenFile = f.path('tokenFile', label('tokenFile'));
  const username = f.str('username', undefined, label('username'));
  const password = f.str('password', undefined, label('password'));
  const methods = [...(token || tokenFile ? ['token'] : []), ...(username || password ? ['basicAuth'] : [])];
  if (methods.length > 1)
    problem(`has more than one authentication method (${methods.join(', ')}); only one is allowed`);
  if (tokenFile && !token) f.readable(tokenFile, label('tokenFile'));

  const as = f.str('as', undefined, label('as'));
  const asUid = f.str('as-uid', undefined, label('as-uid'));
  const asGroups = f.strings('as-groups', undefined, label('as-groups'));
  const rawExtra = body['as-user-extra'];
  let asExtra: Record<string, string[]> | undefined;
  if (rawExtra !== undefined && rawExtra !== null) {
    if (
      !isObject(rawExtra) ||
      Object.values(rawExtra).some((v) => !Array.isArray(v) || v.some((s) => typeof s !== 'string'))
    ) {
      problem('has as-user-extra that is not a mapping of names to lists of strings');
    } else if (Object.keys(rawExtra).length > 0) asExtra = rawExtra as Record<string, string[]>;
  }
  if (!as && (asUid || asGroups?.length || asExtra))
    problem('sets as-uid, as-groups or as-user-extra without as (the user to impersonate)');
  const impersonate: Impersonation | undefined = as
    ? prune({ user: as, uid: asUid, groups: asGroups?.length ? asGroups : undefined, extra: asExtra })
    : undefined;

  let exec: ExecConfig | undefined;
  const rawExec = body.exec;
  if (rawExec !== undefined && rawExec !== null) {
    if (!isObject(rawExec)) problem('has exec that is not a mapping');
    else exec = execInfo(f, rawExec, execClusterConfig);
  }

  return {
    clientCert: prune({ certFile, certData, keyFile, keyData }),
    auth: prune({ token, tokenFile, username, password, exec, impersonate }),
  };
}

function execInfo(f: Fields, raw: Obj, clusterConfig: unknown): ExecConfig | undefined {
  const name = f.entry.name;
  const label = (field: string): string => `user "${name}": exec.${field}`;
  const problem = (what: string): void => f.problem(`user "${name}" ${what}`);
  let command = f.str('command', raw, label('command'));
  if (!command) problem('has an exec plugin without a command (field exec.command)');
  if (f.entry.dir === undefined) {
    problem(
      `has an exec plugin (${command ?? 'exec'}), which this kubeconfig may not run: use a token or a client certificate`,
    );
    return undefined;
  }
  // A command with a path separator is a path, relative to the kubeconfig's directory; else it is looked up on $PATH.
  if (command?.includes(sep)) command = resolveAgainst(f.entry.dir, command);
  const apiVersion = f.str('apiVersion', raw, label('apiVersion'));
  if (!apiVersion)
    problem(`has an exec plugin without an apiVersion (field exec.apiVersion: ${EXEC_API_VERSIONS.join(' or ')})`);
  else if (!EXEC_API_VERSIONS.includes(apiVersion))
    problem(
      `has an exec plugin with the unsupported apiVersion "${apiVersion}" (use ${EXEC_API_VERSIONS.join(' or ')})`,
    );
  const args = f.strings('args', raw, label('args'));
  let env: ExecEnvVar[] | undefined;
  const rawEnv = raw.env;
  if (rawEnv !== undefined && rawEnv !== null) {
    if (!Array.isArray(rawEnv)) problem('has exec.env that is not a list');
    else {
      env = [];
      rawEnv.forEach((e: unknown, i) => {
        if (!isObject(e) || typeof e.name !== 'string' || e.name === '') problem(`has exec.env[${i}] without a name`);
        // A scalar reads as its text (`value: 5` is "5"); a list or mapping has none, and String() of a mapping
        // with its own toString member threw a TypeError.
        else if (typeof e.value === 'object' && e.value !== null)
          problem(`has exec.env[${i}] (${e.name}) whose value is not a string`);
        else
          env!.push({
            name: e.name,
            value:
              typeof e.value === 'string' ? e.value : e.value === undefined || e.value === null ? '' : String(e.value),
          });
      });
    }
  }
  let interactiveMode = f.str('interactiveMode', raw, label('interactiveMode'));
  if (!interactiveMode && apiVersion === 'client.authentication.k8s.io/v1beta1') interactiveMode = 'IfAvailable'; // client-go's defaulting
  if (!interactiveMode) {
    if (apiVersion !== undefined && EXEC_API_VERSIONS.includes(apiVersion)) {
      problem(
        `has an exec plugin without interactiveMode, which ${apiVersion} requires (field exec.interactiveMode: Never, IfAvailable or Always)`,
      );
    }
  } else if (!INTERACTIVE_MODES.includes(interactiveMode)) {
    problem(
      `has an exec plugin with the invalid interactiveMode "${interactiveMode}" (use Never, IfAvailable or Always)`,
    );
  }
  const installHint = f.str('installHint', raw, label('installHint'));
  const provideClusterInfo = f.bool('provideClusterInfo', raw, label('provideClusterInfo'));
  if (!command || !apiVersion) return undefined;
  return prune({
    apiVersion: apiVersion as ExecAPIVersion,
    command,
    args: args?.length ? args : undefined,
    env: env?.length ? env : undefined,
    installHint: installHint === undefined ? undefined : cleanControlCharacters(installHint),
    interactiveMode: interactiveMode as ExecInteractiveMode | undefined,
    provideClusterInfo: provideClusterInfo || undefined,
    clusterConfig,
  }) as ExecConfig;
}

// C0 and C1 control characters but tab, newline and carriage return.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000e-\u001f\u007f-\u009f]/g;

/** client-go's cleanANSIEscapeCodes: control characters other than tab, newlines and carriage return become U+XXXX. */
function cleanControlCharacters(s: string): string {
  return s.replace(CONTROL_CHARACTERS, (ch) => `U+${ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`);
}

function isDNS1123Label(s: string): boolean {
  return s.length <= 63 && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(s);
}

/** The object without its undefined fields, so that equal configurations compare equal. */
export function prune<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
