import { SharedInformerFactory } from '../../cache/factory.js';
import { isDeletedFinalStateUnknown } from '../../cache/keys.js';
import { kubeConfigFromYaml } from '../../clientcmd/kubeconfig-file.js';
import { ConfigurationError } from '../../errors.js';
import { crypto } from '../../internal/builtins.js';
import type { Logger } from '../../log/index.js';
import { Secrets } from '../../rest/builtins.js';
import type { V1Secret } from '@kubernetes/client-node';
import { newCluster, type ClusterOptions } from '../cluster.js';
import type { Aware, Provider, ProviderContext } from '../provider.js';
import { untilAborted } from '../../internal/abort-fanout.js';

const { createHash } = crypto;

/** The label that marks a kubeconfig Secret (multicluster-runtime's kubeconfig provider's, so the same Secrets work). */
export const KUBECONFIG_SECRET_LABEL = 'sigs.k8s.io/multicluster-runtime-kubeconfig';
/** The data key holding the kubeconfig, by default (multicluster-runtime's). */
export const KUBECONFIG_SECRET_KEY = 'kubeconfig';

/** Options of a KubeconfigSecretProvider. */
export interface KubeconfigSecretProviderOptions {
  /** The namespace of the Secrets, in the manager's own cluster (its RBAC needs get, list and watch on Secrets there). */
  namespace: string;
  /** Which Secrets hold kubeconfigs. Default `sigs.k8s.io/multicluster-runtime-kubeconfig=true`. */
  labelSelector?: string;
  /** The data key of the kubeconfig in each Secret. Default `kubeconfig`. */
  key?: string;
  /** The kubeconfig context to use; default each kubeconfig's current-context. */
  context?: string;
  /**
   * Accept kubeconfigs that name local files or run exec credential plugins. Default false: whoever can write a
   * Secret in the namespace could otherwise have the operator read its own files (its service account token) and send
   * them to a server of their choosing, or run a command in its pod.
   */
  allowLocalReferences?: boolean;
  /** Options of every cluster made (its cache and client). */
  clusterOptions?: ClusterOptions;
}

interface Known {
  hash: string;
  stop: AbortController;
}

/**
 * Engages one cluster per labelled Secret holding a kubeconfig, in one namespace of the manager's own cluster
 * (multicluster-runtime's kubeconfig provider, the reference one): the cluster is named after the Secret. A Secret
 * created at run time engages its cluster, one changed (another kubeconfig) replaces it, one deleted disengages it.
 * A kubeconfig that cannot be used is said in a log line naming the Secret and what is wrong, and leaves the cluster
 * as it was. It lists and watches only the labelled Secrets of that namespace.
 */
export class KubeconfigSecretProvider implements Provider {
  private readonly opts: KubeconfigSecretProviderOptions & { labelSelector: string; key: string };
  private readonly known = new Map<string, Known>();

  constructor(opts: KubeconfigSecretProviderOptions) {
    if (!opts.namespace) throw new ConfigurationError('KubeconfigSecretProvider needs the namespace of the Secrets');
    this.opts = {
      ...opts,
      labelSelector: opts.labelSelector ?? `${KUBECONFIG_SECRET_LABEL}=true`,
      key: opts.key ?? KUBECONFIG_SECRET_KEY,
    };
  }

  /** The names of the clusters engaged from Secrets now, sorted. */
  clusterNames(): string[] {
    return [...this.known.keys()].sort();
  }

  async start(signal: AbortSignal, ctx: ProviderContext): Promise<void> {
    const log = ctx.log.withValues({ provider: 'kubeconfig-secrets', namespace: this.opts.namespace });
    const factory = new SharedInformerFactory(ctx.host.getRESTClient(), {
      namespace: this.opts.namespace,
      logger: log,
    });
    const informer = factory.informerFor(Secrets, { labelSelector: this.opts.labelSelector });
    informer.addEventHandler({
      onAdd: (s) => this.apply(s, ctx.aware, log),
      onUpdate: (_old, s) => this.apply(s, ctx.aware, log),
      onDelete: (obj) => {
        const s = isDeletedFinalStateUnknown(obj) ? obj.obj : obj;
        this.forget(s.metadata?.name ?? '', log, 'its Secret was deleted');
      },
    });
    log.info('Watching kubeconfig Secrets', { labelSelector: this.opts.labelSelector, key: this.opts.key });
    factory.start(signal);
    await untilAborted(signal);
    await factory.shutdown();
    for (const name of [...this.known.keys()]) this.forget(name, log, 'the provider stopped');
  }

  private apply(secret: V1Secret, aware: Aware, log: Logger): void {
    const name = secret.metadata?.name ?? '';
    const where = `in Secret ${this.opts.namespace}/${name} (key ${this.opts.key})`;
    if (secret.metadata?.deletionTimestamp) {
      this.forget(name, log, 'its Secret is being deleted');
      return;
    }
    const data = secret.data?.[this.opts.key];
    if (!data) {
      log.error(
        new ConfigurationError(
          `no kubeconfig ${where}: put one under data.${this.opts.key}, or set the provider's key`,
        ),
        'Secret does not hold a kubeconfig; its cluster is left as it was',
        { secret: name },
      );
      return;
    }
    const text = Buffer.from(data, 'base64').toString('utf8');
    const hash = createHash('sha256')
      .update(text)
      .update(this.opts.context ?? '')
      .digest('hex');
    const known = this.known.get(name);
    if (known?.hash === hash) return;
    let cluster;
    try {
      const kubeConfig = kubeConfigFromYaml(text, {
        source: where,
        ...(this.opts.context !== undefined ? { context: this.opts.context } : {}),
        allowLocalReferences: this.opts.allowLocalReferences ?? false,
      });
      cluster = newCluster(name, kubeConfig, this.opts.clusterOptions);
    } catch (err) {
      log.error(err, 'kubeconfig Secret cannot be used; its cluster is left as it was', { secret: name });
      return;
    }
    known?.stop.abort();
    const stop = new AbortController();
    this.known.set(name, { hash, stop });
    if (known) log.info('kubeconfig Secret changed: engaging its cluster anew', { secret: name });
    aware.engage(cluster, stop.signal);
  }

  private forget(name: string, log: Logger, why: string): void {
    const known = this.known.get(name);
    if (!known) return;
    this.known.delete(name);
    known.stop.abort();
    log.info('Letting the cluster go', { secret: name, reason: why });
  }
}
