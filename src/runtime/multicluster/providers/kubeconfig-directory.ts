import { join } from 'node:path';
import { realClock, type Clock } from '../../clock.js';
import { loadKubeConfig } from '../../clientcmd/kubeconfig.js';
import { ConfigurationError } from '../../errors.js';
import { crypto, fs } from '../../internal/builtins.js';
import type { Logger } from '../../log/index.js';
import { newCluster, type ClusterOptions } from '../cluster.js';
import type { Aware, Provider, ProviderContext } from '../provider.js';

const { createHash } = crypto;
const { readdirSync, readFileSync, statSync } = fs;

/** Options of a KubeconfigDirectoryProvider. */
export interface KubeconfigDirectoryProviderOptions {
  /** The folder of kubeconfig files: one cluster per file, named after the file without its extension. */
  directory: string;
  /** How often the folder is read again for files added, changed or removed (ms). Default 5000. */
  pollInterval?: number;
  /** Options of every cluster made (its cache and client). */
  clusterOptions?: ClusterOptions;
  /** Where waits come from; tests pass a fake clock. Default the real one. */
  clock?: Clock;
}

const EXTENSIONS = /\.(ya?ml|kubeconfig|conf|config)$/;

/**
 * Engages one cluster per kubeconfig file in a folder, such as a mounted Secret or ConfigMap with a key per
 * cluster: `east.yaml` is the cluster `east`. The folder is read every pollInterval: a file added engages its
 * cluster, one changed replaces it, one removed disengages it. Hidden files (a mounted volume's `..data`) are
 * skipped; a file that is not a usable kubeconfig is said in a log line naming it, and leaves its cluster as it was.
 * The files are the operator's own, so they may name local files and exec plugins, as loadKubeConfig allows.
 */
export class KubeconfigDirectoryProvider implements Provider {
  private readonly engaged = new Map<string, { hash: string; stop: AbortController }>();
  // The content of each file found unusable, so that it is reported once, not on every read.
  private readonly unusable = new Map<string, string>();
  private readonly clock: Clock;

  constructor(private readonly opts: KubeconfigDirectoryProviderOptions) {
    if (!opts.directory) throw new ConfigurationError('KubeconfigDirectoryProvider needs a directory');
    this.clock = opts.clock ?? realClock;
  }

  /** The names of the clusters engaged now, sorted. */
  clusterNames(): string[] {
    return [...this.engaged.keys()].sort();
  }

  async start(signal: AbortSignal, ctx: ProviderContext): Promise<void> {
    const log = ctx.log.withValues({ provider: 'kubeconfig-directory', directory: this.opts.directory });
    const interval = this.opts.pollInterval ?? 5_000;
    let reported = false;
    do {
      try {
        this.scan(ctx.aware, log);
        reported = false;
      } catch (err) {
        // A folder that is not there (yet) is said once; the clusters it had stay until it says otherwise.
        if (!reported) log.error(err, 'cannot read the kubeconfig directory; trying again');
        reported = true;
      }
    } while (await this.clock.sleep(interval, signal));
    for (const e of this.engaged.values()) e.stop.abort();
    this.engaged.clear();
  }

  private scan(aware: Aware, log: Logger): void {
    const seen = new Set<string>();
    for (const entry of readdirSync(this.opts.directory)) {
      if (entry.startsWith('.')) continue;
      const file = join(this.opts.directory, entry);
      let text: string;
      try {
        if (!statSync(file).isFile()) continue;
        text = readFileSync(file, 'utf8');
      } catch {
        continue;
      }
      const name = entry.replace(EXTENSIONS, '');
      seen.add(name);
      const hash = createHash('sha256').update(text).digest('hex');
      const known = this.engaged.get(name);
      if (known?.hash === hash || this.unusable.get(name) === hash) continue;
      let cluster;
      try {
        cluster = newCluster(name, loadKubeConfig({ kubeconfig: file }), this.opts.clusterOptions);
      } catch (err) {
        log.error(err, 'kubeconfig file cannot be used; its cluster is left as it was', { file });
        this.unusable.set(name, hash);
        continue;
      }
      this.unusable.delete(name);
      known?.stop.abort();
      const stop = new AbortController();
      this.engaged.set(name, { hash, stop });
      if (known) log.info('kubeconfig file changed: engaging its cluster anew', { file });
      aware.engage(cluster, stop.signal);
    }
    for (const name of [...this.unusable.keys()]) if (!seen.has(name)) this.unusable.delete(name);
    for (const [name, e] of [...this.engaged]) {
      if (seen.has(name)) continue;
      e.stop.abort();
      this.engaged.delete(name);
      log.info('kubeconfig file removed: letting its cluster go', { cluster: name });
    }
  }
}
