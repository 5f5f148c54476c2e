import { SharedInformerFactory } from '../../cache/factory.js';
import { isDeletedFinalStateUnknown } from '../../cache/keys.js';
import { Namespaces } from '../../rest/builtins.js';
import { newCluster, type ClusterOptions } from '../cluster.js';
import type { Provider, ProviderContext } from '../provider.js';
import { untilAborted } from '../../internal/abort-fanout.js';

/** Options of a NamespaceProvider. */
export interface NamespaceProviderOptions {
  /** Which namespaces are clusters, e.g. `tenant=true`; default every namespace. */
  labelSelector?: string;
  /** Options of every cluster made (its cache and client); the namespace is the cluster's own. */
  clusterOptions?: Omit<ClusterOptions, 'namespace'>;
}

/**
 * Engages each namespace of the manager's own cluster as a cluster of its own, named after it (multicluster-runtime's
 * namespace provider): for tests of multi-cluster controllers on one API server, and for tenancy within one
 * cluster. Each has its own cache of that namespace, and clients that reach that namespace alone (objects naming no
 * namespace go into it; other namespaces and cluster-scoped kinds are refused). A namespace created engages its
 * cluster, one deleted (or terminating) disengages it.
 */
export class NamespaceProvider implements Provider {
  private readonly engaged = new Map<string, AbortController>();

  constructor(private readonly opts: NamespaceProviderOptions = {}) {}

  /** The names of the clusters engaged now, sorted. */
  clusterNames(): string[] {
    return [...this.engaged.keys()].sort();
  }

  async start(signal: AbortSignal, ctx: ProviderContext): Promise<void> {
    const log = ctx.log.withValues({ provider: 'namespaces' });
    const factory = new SharedInformerFactory(ctx.host.getRESTClient(), { logger: log });
    const informer = factory.informerFor(Namespaces, { labelSelector: this.opts.labelSelector });
    const forget = (name: string): void => {
      this.engaged.get(name)?.abort();
      this.engaged.delete(name);
    };
    const apply = (ns: { metadata?: { name?: string; deletionTimestamp?: unknown } }): void => {
      const name = ns.metadata?.name ?? '';
      if (name === '') return;
      if (ns.metadata?.deletionTimestamp) {
        forget(name);
        return;
      }
      if (this.engaged.has(name)) return;
      const stop = new AbortController();
      this.engaged.set(name, stop);
      ctx.aware.engage(
        newCluster(name, ctx.host.kubeConfig, { ...this.opts.clusterOptions, namespace: name }),
        stop.signal,
      );
    };
    informer.addEventHandler({
      onAdd: apply,
      onUpdate: (_old, ns) => apply(ns),
      onDelete: (obj) => forget((isDeletedFinalStateUnknown(obj) ? obj.obj : obj).metadata?.name ?? ''),
    });
    factory.start(signal);
    await untilAborted(signal);
    await factory.shutdown();
    for (const name of [...this.engaged.keys()]) forget(name);
  }
}
