// Exec credential plugins, as client-go runs them (k8s.io/client-go/plugin/pkg/client/auth/exec): the plugin is
// started with KUBERNETES_EXEC_INFO holding an ExecCredential request, prints an ExecCredential whose status holds a
// token or a client certificate and key, and the answer is used until its expirationTimestamp, or until a request
// made with it is answered 401.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import type { ExecConfig, KubeConfig } from '../clientcmd/kubeconfig-types.js';
import { KubeConfigError } from '../clientcmd/kubeconfig-error.js';

/** What a plugin answered. One object per run: a 401 refreshes only if the credentials used are still these. */
export interface ExecCredentials {
  /** A bearer token (status.token). */
  readonly token?: string;
  /** A client certificate in PEM (status.clientCertificateData). */
  readonly cert?: string;
  /** Its key in PEM (status.clientKeyData). */
  readonly key?: string;
  /** Milliseconds since the epoch after which the credentials are not used; undefined: until a 401. */
  readonly expiresAt?: number;
}

/** How plugins are run; tests replace the clock and the terminal check. */
export interface ExecPluginOptions {
  /** Milliseconds since the epoch. Default Date.now. */
  clock?: () => number;
  /** Whether stdin is a terminal (for interactiveMode IfAvailable and Always). Default process.stdin.isTTY. */
  isTerminal?: () => boolean;
  /** Where the plugin's stderr goes (it may prompt there). Default process.stderr. */
  stderr?: NodeJS.WritableStream;
}

// Plugins are shared, as client-go shares its authenticators: two clients of one configuration run the plugin once.
const shared = new Map<string, ExecPlugin>();

/**
 * The plugin of a configuration's user, shared with every other client of an equal configuration unless options
 * (a test's clock) are given.
 */
export function execPluginFor(kc: KubeConfig, exec: ExecConfig, opts?: ExecPluginOptions): ExecPlugin {
  if (opts && Object.keys(opts).length > 0) return new ExecPlugin(kc, exec, opts);
  const key = JSON.stringify([exec, exec.provideClusterInfo ? [kc.server, kc.tls, kc.proxyURL] : undefined]);
  let p = shared.get(key);
  if (!p) shared.set(key, (p = new ExecPlugin(kc, exec, {})));
  return p;
}

/** Runs one exec credential plugin and caches its answer until it expires or is refused. */
export class ExecPlugin {
  private cached: ExecCredentials | undefined;
  private running: Promise<ExecCredentials> | undefined;
  private readonly clock: () => number;
  private readonly source: string;

  constructor(
    private readonly kc: KubeConfig,
    private readonly exec: ExecConfig,
    private readonly opts: ExecPluginOptions,
  ) {
    this.clock = opts.clock ?? Date.now;
    this.source = kc.source ?? 'kubeconfig';
  }

  /** The cached credentials, or the plugin's new answer when there are none or they expired. */
  get(): Promise<ExecCredentials> {
    const c = this.cached;
    if (c && (c.expiresAt === undefined || this.clock() <= c.expiresAt)) return Promise.resolve(c);
    return this.refresh();
  }

  /** After a 401 with `used`: run the plugin again, unless another request already did (client-go's maybeRefreshCreds). */
  refreshIfCurrent(used: ExecCredentials): Promise<ExecCredentials> {
    if (this.running) return this.running;
    if (this.cached !== used) return this.get();
    return this.refresh();
  }

  private refresh(): Promise<ExecCredentials> {
    // One run at a time: an interactive plugin must not prompt twice.
    this.running ??= this.run()
      .then((c) => (this.cached = c))
      .finally(() => (this.running = undefined));
    return this.running;
  }

  private async run(): Promise<ExecCredentials> {
    const { exec } = this;
    const interactive = this.interactive();
    const spec: Record<string, unknown> = { interactive };
    if (exec.provideClusterInfo) spec.cluster = await this.clusterInfo();
    const info = JSON.stringify({ apiVersion: exec.apiVersion, kind: 'ExecCredential', spec });
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const e of exec.env ?? []) env[e.name] = e.value;
    env.KUBERNETES_EXEC_INFO = info;
    const stdout = await this.spawn(env, interactive);
    return this.decode(stdout);
  }

  private interactive(): boolean {
    const mode = this.exec.interactiveMode ?? 'IfAvailable';
    const terminal = (this.opts.isTerminal ?? (() => process.stdin.isTTY === true))();
    if (mode === 'Never') return false;
    if (mode === 'IfAvailable') return terminal;
    if (!terminal)
      throw this.error(
        'exec plugin cannot support interactive mode: standard input is not a terminal (interactiveMode is Always)',
      );
    return true;
  }

  /** spec.cluster (client.authentication.k8s.io Cluster): the server, its CA and the cluster's exec extension. */
  private async clusterInfo(): Promise<Record<string, unknown>> {
    const tls = this.kc.tls ?? {};
    let ca = tls.caData;
    if (ca === undefined && tls.caFile) ca = await readFile(tls.caFile, 'utf8');
    const cluster: Record<string, unknown> = { server: this.kc.server };
    if (tls.serverName) cluster['tls-server-name'] = tls.serverName;
    if (tls.insecureSkipTLSVerify) cluster['insecure-skip-tls-verify'] = true;
    if (ca) cluster['certificate-authority-data'] = Buffer.from(ca, 'utf8').toString('base64');
    if (this.kc.proxyURL) cluster['proxy-url'] = this.kc.proxyURL;
    if (this.exec.clusterConfig !== undefined) cluster.config = this.exec.clusterConfig;
    return cluster;
  }

  private spawn(env: NodeJS.ProcessEnv, interactive: boolean): Promise<string> {
    const { command, args = [], installHint } = this.exec;
    const stderr = this.opts.stderr ?? process.stderr;
    return new Promise<string>((resolve, reject) => {
      const child = spawn(command, [...args], { env, stdio: [interactive ? 'inherit' : 'ignore', 'pipe', 'pipe'] });
      const out: Buffer[] = [];
      let errTail = '';
      child.stdout.on('data', (b: Buffer) => out.push(b));
      child.stderr.on('data', (b: Buffer) => {
        stderr.write(b);
        errTail = (errTail + b.toString('utf8')).slice(-2000);
      });
      child.once('error', (e: NodeJS.ErrnoException) => {
        const hint = installHint ? `\n\n${installHint}` : '';
        if (e.code === 'ENOENT') reject(this.error(`exec: executable ${command} not found${hint}`, e));
        else if (e.code === 'EACCES')
          reject(this.error(`exec: executable ${command} cannot be run (permission denied)${hint}`, e));
        else reject(this.error(`exec: ${command}: ${e.message}`, e));
      });
      child.once('close', (code, signal) => {
        if (code === 0) return resolve(Buffer.concat(out).toString('utf8'));
        const how = code === null ? `was killed by ${signal}` : `failed with exit code ${code}`;
        const said = errTail.trim() ? `: ${errTail.trim().split('\n').slice(-3).join(' ')}` : '';
        reject(this.error(`exec: executable ${command} ${how}${said}`));
      });
    });
  }

  private decode(stdout: string): ExecCredentials {
    const { exec } = this;
    let cred: unknown;
    try {
      cred = JSON.parse(stdout);
    } catch (e) {
      throw this.error(
        `exec plugin ${exec.command} printed no ExecCredential (decoding stdout: ${(e as Error).message})`,
        e,
      );
    }
    const o = (cred ?? {}) as { apiVersion?: unknown; kind?: unknown; status?: Record<string, unknown> | null };
    if (o.apiVersion !== exec.apiVersion) {
      throw this.error(
        `exec plugin is configured to use API version ${exec.apiVersion}, plugin returned version ${String(o.apiVersion)}`,
      );
    }
    if (o.kind !== 'ExecCredential')
      throw this.error(`exec plugin ${exec.command} returned kind ${String(o.kind)}, not ExecCredential`);
    const status = o.status;
    if (!status || typeof status !== 'object') throw this.error("exec plugin didn't return a status field");
    const field = (k: string): string | undefined => {
      const v = status[k];
      if (v === undefined || v === null || v === '') return undefined;
      if (typeof v !== 'string') throw this.error(`exec plugin returned a status.${k} that is not a string`);
      return v;
    };
    const token = field('token');
    const cert = field('clientCertificateData');
    const key = field('clientKeyData');
    if (!token && !cert && !key) throw this.error("exec plugin didn't return a token or cert/key pair");
    if (!cert !== !key) throw this.error('exec plugin returned only certificate or key, not both');
    const ts = field('expirationTimestamp');
    let expiresAt: number | undefined;
    if (ts !== undefined) {
      expiresAt = Date.parse(ts);
      if (Number.isNaN(expiresAt))
        throw this.error(`exec plugin returned an expirationTimestamp that is not a time: ${ts}`);
    }
    return { token, cert, key, expiresAt };
  }

  private error(message: string, cause?: unknown): KubeConfigError {
    return new KubeConfigError(`${this.source}: ${message}`, 'Invalid', cause === undefined ? undefined : { cause });
  }
}
