/**
 * Keeps a serving certificate current (controller-runtime's certwatcher): reads the cert and key files, then
 * re-reads them when the directory changes (a Secret volume swaps its `..data` symlink) and every pollInterval as a
 * fallback for events fs.watch misses. A new pair is used only once cert and key match, so a half-written
 * rotation never breaks serving.
 */
import type { FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createSecureContext } from 'node:tls';
import { fs } from '../internal/builtins.js';
import type { Logger } from '../log/index.js';
import { LifecycleError } from '../errors.js';

/** A certificate and its private key, PEM. */
export interface CertKeyPem {
  /** The certificate (chain), PEM. */
  cert: string;
  /** Its private key, PEM. */
  key: string;
}

/** Options of a CertWatcher: the files to watch, the logger, and what to call when they change. */
export interface CertWatcherOptions {
  /** Path of the certificate file (tls.crt). */
  certPath: string;
  /** Path of the key file (tls.key). */
  keyPath: string;
  /** Where reloads and watch problems are logged. */
  log: Logger;
  /** Called with each new valid pair after the first. */
  onChange: (pair: CertKeyPem) => void;
  /** Re-read at least this often (ms). Default 10000, as controller-runtime. */
  pollIntervalMs?: number;
}

const DEBOUNCE_MS = 100;

/**
 * Keeps a serving certificate and key current (controller-runtime's certwatcher.CertWatcher): reads the pair, then
 * re-reads it when the files change (watching them and polling), and hands each new valid pair to onChange; an invalid
 * pair is logged and the previous one kept.
 */
export class CertWatcher {
  private currentPair: CertKeyPem | undefined;
  private watcher: FSWatcher | undefined;
  private poll: ReturnType<typeof setInterval> | undefined;
  private debounce: ReturnType<typeof setTimeout> | undefined;
  private reading: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly opts: CertWatcherOptions) {}

  /** The pair in use. */
  current(): CertKeyPem {
    if (!this.currentPair) throw new LifecycleError('the certificate watcher was not started', 'NotStarted');
    return this.currentPair;
  }

  /** Reads the pair (rejects if it is missing or does not match) and starts watching for changes. */
  async start(): Promise<CertKeyPem> {
    const pair = await this.readPair();
    this.currentPair = pair;
    if (this.stopped) return pair;
    try {
      this.watcher = fs.watch(dirname(this.opts.certPath), () => this.schedule());
      this.watcher.on('error', (err) => this.opts.log.error(err, 'certificate directory watch failed; polling only'));
    } catch (err) {
      this.opts.log.error(err, 'cannot watch the certificate directory; polling only');
    }
    this.poll = setInterval(() => this.schedule(), this.opts.pollIntervalMs ?? 10_000);
    this.poll.unref();
    return pair;
  }

  /** Stops watching; releases the watcher and timers. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.watcher?.close();
    this.watcher = undefined;
    if (this.poll) clearInterval(this.poll);
    if (this.debounce) clearTimeout(this.debounce);
    this.poll = this.debounce = undefined;
    await this.reading;
  }

  private schedule(): void {
    if (this.stopped) return;
    if (this.debounce) clearTimeout(this.debounce);
    // Writers touch several files in a row; read once they are done.
    this.debounce = setTimeout(() => {
      this.debounce = undefined;
      this.reading ??= this.reload().finally(() => (this.reading = undefined));
    }, DEBOUNCE_MS);
  }

  private async reload(): Promise<void> {
    let pair: CertKeyPem;
    try {
      pair = await this.readPair();
    } catch (err) {
      this.opts.log.debug('keeping the current certificate', {
        reason: err instanceof Error ? err.message : String(err),
      });
      return;
    }
    if (this.stopped || (pair.cert === this.currentPair?.cert && pair.key === this.currentPair?.key)) return;
    this.currentPair = pair;
    this.opts.log.info('Updated current TLS certificate', { cert: this.opts.certPath });
    this.opts.onChange(pair);
  }

  private async readPair(): Promise<CertKeyPem> {
    const [cert, key] = await Promise.all([readFile(this.opts.certPath, 'utf8'), readFile(this.opts.keyPath, 'utf8')]);
    createSecureContext({ cert, key }); // throws when they do not belong together
    return { cert, key };
  }
}
