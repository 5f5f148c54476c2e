import type { KubeConfig } from '../../clientcmd/kubeconfig-types.js';
import { ConfigurationError } from '../../errors.js';
import { newCluster, type ClusterOptions } from '../cluster.js';
import type { Aware, Provider, ProviderContext } from '../provider.js';
import { untilAborted } from '../../internal/abort-fanout.js';

/** Options of a StaticProvider. */
export interface StaticProviderOptions {
  /** The clusters, by name: each name's kubeconfig (`loadKubeConfig({ kubeconfig: file })`, a test's kubeConfig). */
  clusters?: Record<string, KubeConfig>;
  /** Options of every cluster made (its cache and client). */
  clusterOptions?: ClusterOptions;
}

/**
 * A fixed list of clusters, for tests and for fleets whose members are known up front (multicluster-runtime's
 * clusters provider). set() and delete() change the list while the manager runs: a cluster set is engaged at once,
 * one deleted is disengaged.
 */
export class StaticProvider implements Provider {
  private readonly configs = new Map<string, { kubeConfig: KubeConfig; options: ClusterOptions }>();
  private readonly engaged = new Map<string, AbortController>();
  private readonly clusterOptions: ClusterOptions;
  private aware: Aware | undefined;
  private runSignal: AbortSignal | undefined;

  constructor(opts: StaticProviderOptions = {}) {
    this.clusterOptions = opts.clusterOptions ?? {};
    for (const [name, kc] of Object.entries(opts.clusters ?? {})) this.set(name, kc);
  }

  /**
   * Adds a cluster, or replaces one of that name (engaged at once while the manager runs); `options` are its own
   * instead of clusterOptions.
   */
  set(name: string, kubeConfig: KubeConfig, options?: ClusterOptions): void {
    if (name === '') throw new ConfigurationError("StaticProvider: a cluster needs a name ('' is the manager's own)");
    const entry = { kubeConfig, options: options ?? this.clusterOptions };
    this.configs.set(name, entry);
    if (this.aware) this.engage(name, entry, this.aware);
  }

  /** Removes a cluster (disengaged at once while the manager runs). */
  delete(name: string): void {
    this.configs.delete(name);
    this.engaged.get(name)?.abort();
    this.engaged.delete(name);
  }

  /** The clusters' names, sorted. */
  names(): string[] {
    return [...this.configs.keys()].sort();
  }

  async start(signal: AbortSignal, ctx: ProviderContext): Promise<void> {
    this.aware = ctx.aware;
    this.runSignal = signal;
    for (const [name, entry] of this.configs) this.engage(name, entry, ctx.aware);
    await untilAborted(signal);
    this.aware = undefined;
    for (const ac of this.engaged.values()) ac.abort();
    this.engaged.clear();
  }

  private engage(name: string, entry: { kubeConfig: KubeConfig; options: ClusterOptions }, aware: Aware): void {
    if (this.runSignal?.aborted) return;
    this.engaged.get(name)?.abort();
    const ac = new AbortController();
    this.engaged.set(name, ac);
    aware.engage(newCluster(name, entry.kubeConfig, entry.options), ac.signal);
  }
}
