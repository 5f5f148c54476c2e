import type { V1Secret } from '@kubernetes/client-node';
import { SharedInformerFactory } from '../../cache/factory.js';
import { isDeletedFinalStateUnknown } from '../../cache/keys.js';
import { kubeConfigFromYaml } from '../../clientcmd/kubeconfig-file.js';
import { crypto } from '../../internal/builtins.js';
import type { Logger } from '../../log/index.js';
import { Secrets } from '../../rest/builtins.js';
import { defineResource } from '../../rest/resource.js';
import type { KubeObject, Resource } from '../../rest/types.js';
import { newCluster, type ClusterOptions } from '../cluster.js';
import type { Aware, Provider, ProviderContext } from '../provider.js';
import { untilAborted } from '../../internal/abort-fanout.js';

const { createHash } = crypto;

/** The label Cluster API puts on the Secrets of a Cluster, naming it. */
export const CLUSTER_NAME_LABEL = 'cluster.x-k8s.io/cluster-name';

/** A Cluster API Cluster, as far as the provider reads it. */
export interface CAPICluster extends KubeObject {
  /** Its status: the phase (Pending, Provisioning, Provisioned, Deleting, Failed, Unknown). */
  status?: { phase?: string };
}

/** Options of a ClusterAPIProvider. */
export interface ClusterAPIProviderOptions {
  /** Only the Clusters (and their Secrets) of this namespace; default every namespace. */
  namespace?: string;
  /** The API version of Cluster to read: v1beta1 (default) or v1beta2, whichever the management cluster serves. */
  version?: 'v1beta1' | 'v1beta2';
  /** Options of every cluster made (its cache and client). */
  clusterOptions?: ClusterOptions;
}

interface Entry {
  cluster?: CAPICluster;
  secret?: V1Secret;
  engaged?: { hash: string; stop: AbortController };
}

/**
 * Engages the workload clusters of Cluster API (multicluster-runtime's cluster-api provider): every `Cluster`
 * (cluster.x-k8s.io) in the Provisioned phase whose `<name>-kubeconfig` Secret holds a kubeconfig (data.value), as
 * the cluster `<namespace>/<name>`. A Cluster that leaves the phase (Deleting), is deleted, or loses its Secret is
 * disengaged; a Secret rotated by Cluster API re-engages the cluster with the new kubeconfig. Its RBAC: list and
 * watch Clusters and Secrets.
 */
export class ClusterAPIProvider implements Provider {
  private readonly clusters: Resource<CAPICluster>;
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly opts: ClusterAPIProviderOptions = {}) {
    this.clusters = defineResource<CAPICluster>({
      group: 'cluster.x-k8s.io',
      version: opts.version ?? 'v1beta1',
      kind: 'Cluster',
      plural: 'clusters',
      namespaced: true,
    });
  }

  /** The names (`namespace/name`) of the clusters engaged now, sorted. */
  clusterNames(): string[] {
    return [...this.entries.entries()]
      .filter(([, e]) => e.engaged)
      .map(([k]) => k)
      .sort();
  }

  async start(signal: AbortSignal, ctx: ProviderContext): Promise<void> {
    const log = ctx.log.withValues({ provider: 'cluster-api' });
    const factory = new SharedInformerFactory(ctx.host.getRESTClient(), {
      ...(this.opts.namespace ? { namespace: this.opts.namespace } : {}),
      logger: log,
    });
    const update = (key: string, change: (e: Entry) => void): void => {
      const e = this.entries.get(key) ?? {};
      change(e);
      this.entries.set(key, e);
      this.settle(key, e, ctx.aware, log);
    };
    const clusterKey = (c: KubeObject): string => `${c.metadata?.namespace ?? ''}/${c.metadata?.name ?? ''}`;
    factory.informerFor(this.clusters).addEventHandler({
      onAdd: (c) => update(clusterKey(c), (e) => (e.cluster = c)),
      onUpdate: (_old, c) => update(clusterKey(c), (e) => (e.cluster = c)),
      onDelete: (obj) => {
        const c = isDeletedFinalStateUnknown(obj) ? obj.obj : obj;
        update(clusterKey(c), (e) => delete e.cluster);
      },
    });
    // Cluster API labels the kubeconfig Secret with the Cluster's name.
    const secretKey = (s: V1Secret): string | undefined => {
      const name = s.metadata?.name ?? '';
      const owner = s.metadata?.labels?.[CLUSTER_NAME_LABEL];
      return owner && name === `${owner}-kubeconfig` ? `${s.metadata?.namespace ?? ''}/${owner}` : undefined;
    };
    factory.informerFor(Secrets, { labelSelector: CLUSTER_NAME_LABEL }).addEventHandler({
      onAdd: (s) => {
        const key = secretKey(s);
        if (key) update(key, (e) => (e.secret = s));
      },
      onUpdate: (_old, s) => {
        const key = secretKey(s);
        if (key) update(key, (e) => (e.secret = s));
      },
      onDelete: (obj) => {
        const key = secretKey(isDeletedFinalStateUnknown(obj) ? obj.obj : obj);
        if (key) update(key, (e) => delete e.secret);
      },
    });
    log.info('Watching Cluster API Clusters', {
      apiVersion: this.clusters.apiVersion,
      namespace: this.opts.namespace ?? '(all)',
    });
    factory.start(signal);
    await untilAborted(signal);
    await factory.shutdown();
    for (const e of this.entries.values()) e.engaged?.stop.abort();
    this.entries.clear();
  }

  /** Engages, replaces or disengages the cluster of `key` from what is known of its Cluster and Secret now. */
  private settle(key: string, e: Entry, aware: Aware, log: Logger): void {
    const phase = e.cluster?.status?.phase;
    const data = e.secret?.data?.value;
    const ready = phase === 'Provisioned' && !e.cluster?.metadata?.deletionTimestamp && data !== undefined;
    if (!ready) {
      if (e.engaged) {
        e.engaged.stop.abort();
        delete e.engaged;
        const why = !e.cluster
          ? 'its Cluster is gone'
          : !data
            ? 'its kubeconfig Secret is gone'
            : `its phase is ${phase}`;
        log.info('Letting the cluster go', { cluster: key, reason: why });
      }
      if (!e.cluster && !e.secret) this.entries.delete(key);
      return;
    }
    const text = Buffer.from(data, 'base64').toString('utf8');
    const hash = createHash('sha256').update(text).digest('hex');
    if (e.engaged?.hash === hash) return;
    let cluster;
    try {
      const kubeConfig = kubeConfigFromYaml(text, { source: `in Secret ${key}-kubeconfig (key value)` });
      cluster = newCluster(key, kubeConfig, this.opts.clusterOptions);
    } catch (err) {
      log.error(err, 'Cluster API kubeconfig cannot be used; the cluster is left as it was', { cluster: key });
      return;
    }
    e.engaged?.stop.abort();
    const stop = new AbortController();
    e.engaged = { hash, stop };
    aware.engage(cluster, stop.signal);
  }
}
