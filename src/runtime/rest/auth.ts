// The credentials and TLS material of a KubeConfig, as headers and agent options, refreshed as client-go refreshes
// them: a token file is re-read at most once a minute and after a 401 (transport/token_source.go), client certificate
// files every 5 minutes (transport/cert_rotation.go), an exec plugin's answer when it expires or after a 401.
import { readFile } from 'node:fs/promises';
import { execPluginFor, type ExecCredentials, type ExecPlugin, type ExecPluginOptions } from './exec.js';
import type { KubeConfig } from '../clientcmd/kubeconfig-types.js';
import { KubeConfigError } from '../clientcmd/kubeconfig-error.js';

/** TLS options for https.Agent: PEM text, read from the configuration's files. */
export interface TlsMaterial {
  /** CA certificates that verify the server. */
  readonly ca?: string;
  /** The client certificate. */
  readonly cert?: string;
  /** Its private key. */
  readonly key?: string;
  /** false with insecureSkipTLSVerify, else unset. */
  readonly rejectUnauthorized?: boolean;
  /** The name to verify the server's certificate against (tls-server-name). */
  readonly servername?: string;
}

/**
 * What one request is sent with. The same object is returned while nothing changed, and `tls` stays the same object
 * while the TLS material is unchanged, so a transport can tell when to rebuild its agent by identity.
 */
export interface AuthMaterial {
  /** Authorization and Impersonate-* headers. */
  readonly headers: Readonly<Record<string, string>>;
  /** The agent's TLS options. */
  readonly tls: TlsMaterial;
  /** The token file's read, or the plugin's answer, these headers carry: what a 401 invalidates. */
  readonly tokenRead?: TokenRead;
  /** The exec plugin's answer these headers carry, when an exec plugin supplies the credentials. */
  readonly execCredentials?: ExecCredentials;
}

interface TokenRead {
  readonly token: string;
  readonly at: number;
}

/** How a transport keeps its credentials current (TransportOptions.auth); tests inject the clock. */
export interface AuthenticatorOptions extends ExecPluginOptions {
  /** How long a token read from tokenFile is used before the file is read again (ms). Default 60 s, as client-go. */
  tokenFileTtlMs?: number;
  /** How long client certificate files are used before they are read again (ms). Default 5 minutes, as client-go. */
  certFileTtlMs?: number;
}

/** The headers and TLS material of one KubeConfig, kept current. */
export class Authenticator {
  /** True when a 401 may be cured by re-reading credentials (a token file or an exec plugin). */
  readonly dynamic: boolean;
  private readonly clock: () => number;
  private readonly tokenTtl: number;
  private readonly certTtl: number;
  /** The configuration's source, for messages. */
  readonly source: string;
  private readonly staticHeaders: Record<string, string>;
  private readonly exec: ExecPlugin | undefined;
  private ca: string | undefined;
  private caRead = false;
  private clientCert: { cert: string; key: string; at: number } | undefined;
  private tokenRead: TokenRead | undefined;
  private material: AuthMaterial | undefined;

  constructor(
    private readonly kc: KubeConfig,
    opts: AuthenticatorOptions = {},
  ) {
    this.source = kc.source ?? 'kubeconfig';
    this.clock = opts.clock ?? Date.now;
    this.tokenTtl = opts.tokenFileTtlMs ?? 60_000;
    this.certTtl = opts.certFileTtlMs ?? 5 * 60_000;
    const tls = kc.tls ?? {};
    const auth = kc.auth ?? {};
    // client-go's transport refuses these combinations too (transport.Config, TLSConfigFor).
    if (tls.insecureSkipTLSVerify && (tls.caData || tls.caFile)) {
      throw this.error(
        'insecureSkipTLSVerify is set together with a certificate authority; a CA cannot be used with the insecure flag',
      );
    }
    const hasToken = Boolean(auth.token || auth.tokenFile);
    const hasBasic = Boolean(auth.username || auth.password);
    if (hasToken && hasBasic) throw this.error('username/password or bearer token may be set, but not both');
    const hasCert = Boolean(tls.certData || tls.certFile);
    if (hasCert !== Boolean(tls.keyData || tls.keyFile))
      throw this.error('a client certificate needs both a certificate and a key');
    this.staticHeaders = {};
    if (hasBasic)
      this.staticHeaders.Authorization = `Basic ${Buffer.from(`${auth.username ?? ''}:${auth.password ?? ''}`).toString('base64')}`;
    else if (auth.token && !auth.tokenFile) this.staticHeaders.Authorization = `Bearer ${auth.token}`;
    const imp = auth.impersonate;
    if (imp) {
      this.staticHeaders['Impersonate-User'] = imp.user;
      if (imp.uid) this.staticHeaders['Impersonate-Uid'] = imp.uid;
      if (imp.groups?.length) this.staticHeaders['Impersonate-Group'] = imp.groups.join(', ');
      for (const [k, vs] of Object.entries(imp.extra ?? {}))
        this.staticHeaders[`Impersonate-Extra-${encodeURIComponent(k)}`] = vs.join(', ');
    }
    // As in client-go, an exec plugin is used only when no token, basic auth or client certificate is configured.
    const execOpts: ExecPluginOptions = {};
    if (opts.clock) execOpts.clock = opts.clock;
    if (opts.isTerminal) execOpts.isTerminal = opts.isTerminal;
    if (opts.stderr) execOpts.stderr = opts.stderr;
    this.exec = auth.exec && !hasToken && !hasBasic && !hasCert ? execPluginFor(kc, auth.exec, execOpts) : undefined;
    this.dynamic = Boolean(this.exec || auth.tokenFile);
  }

  /** The material for the next request. Resolves at once from the caches unless something must be read or run. */
  async current(): Promise<AuthMaterial> {
    const tls = this.kc.tls ?? {};
    if (!this.caRead) {
      this.ca = tls.caData ?? (tls.caFile ? await this.read(tls.caFile, 'caFile') : undefined);
      this.caRead = true;
    }
    const now = this.clock();
    let cert: string | undefined;
    let key: string | undefined;
    if (tls.certData || tls.certFile) {
      if (tls.certFile || tls.keyFile) {
        if (!this.clientCert || now - this.clientCert.at >= this.certTtl) {
          const [c, k] = await Promise.all([
            tls.certData ?? this.read(tls.certFile!, 'certFile'),
            tls.keyData ?? this.read(tls.keyFile!, 'keyFile'),
          ]);
          this.clientCert = { cert: c, key: k, at: now };
        }
        ({ cert, key } = this.clientCert);
      } else {
        cert = tls.certData;
        key = tls.keyData;
      }
    }
    const headers = { ...this.staticHeaders };
    let tokenRead: TokenRead | undefined;
    let execCredentials: ExecCredentials | undefined;
    if (this.kc.auth?.tokenFile) {
      tokenRead = await this.readTokenFile(now);
      headers.Authorization = `Bearer ${tokenRead.token}`;
    } else if (this.exec) {
      execCredentials = await this.exec.get();
      if (execCredentials.token) headers.Authorization = `Bearer ${execCredentials.token}`;
      if (execCredentials.cert) ({ cert, key } = execCredentials);
    }
    const prev = this.material;
    const nextTls: TlsMaterial = {
      ca: this.ca,
      cert,
      key,
      rejectUnauthorized: tls.insecureSkipTLSVerify ? false : undefined,
      servername: tls.serverName,
    };
    const sameTls = prev !== undefined && sameFields(prev.tls, nextTls);
    if (
      prev &&
      sameTls &&
      sameFields(prev.headers, headers) &&
      prev.tokenRead === tokenRead &&
      prev.execCredentials === execCredentials
    )
      return prev;
    this.material = { headers, tls: sameTls ? prev.tls : nextTls, tokenRead, execCredentials };
    return this.material;
  }

  /**
   * A request sent with `used` was answered 401: forget the token file's read, or have the plugin run again, unless
   * that already happened since (client-go's ResetTokenOlderThan and maybeRefreshCreds).
   */
  async unauthorized(used: AuthMaterial): Promise<void> {
    if (used.tokenRead && this.tokenRead === used.tokenRead) this.tokenRead = undefined;
    if (used.execCredentials && this.exec) await this.exec.refreshIfCurrent(used.execCredentials);
  }

  private async readTokenFile(now: number): Promise<TokenRead> {
    const cached = this.tokenRead;
    if (cached && now - cached.at < this.tokenTtl) return cached;
    const file = this.kc.auth!.tokenFile!;
    try {
      const token = (await readFile(file, 'utf8')).trim();
      if (token === '') throw new KubeConfigError(`read empty token from file ${file}`);
      this.tokenRead = { token, at: now };
      return this.tokenRead;
    } catch (e) {
      // client-go keeps the last token when the file cannot be read again, and falls back to a static token.
      if (cached) return cached;
      const fallback = this.kc.auth?.token;
      if (fallback) return { token: fallback, at: now - this.tokenTtl };
      throw this.error(`cannot read the token file ${file}: ${(e as Error).message}`, e);
    }
  }

  private async read(file: string, field: string): Promise<string> {
    try {
      return await readFile(file, 'utf8');
    } catch (e) {
      throw this.error(`${field} ${file} cannot be read: ${(e as Error).message}`, e);
    }
  }

  private error(message: string, cause?: unknown): KubeConfigError {
    return new KubeConfigError(`${this.source}: ${message}`, 'Invalid', cause === undefined ? undefined : { cause });
  }
}

function sameFields(a: object, b: object): boolean {
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  return ka.every((k) => (a as Record<string, unknown>)[k] === (b as Record<string, unknown>)[k]);
}
