import { waitForCacheSync } from '../cache/wait.js';
import type { Source } from '../controller/events.js';
import type { Resource } from '../rest/types.js';

/**
 * What the builder's reads() adds to a controller: a source of no events, synced once the read kind's informer has
 * listed, so the controller's workers (and so its first reconcile) wait for that kind as they wait for the watched
 * ones, also when the controller is added after the manager started.
 */
export class ReadKindSource<R> implements Source<R> {
  constructor(
    private readonly resource: Resource,
    private readonly informer: { hasSynced(): boolean },
    private readonly onlyMetadata: boolean,
  ) {}

  async start(): Promise<void> {}

  waitForSync(signal: AbortSignal): Promise<boolean> {
    return waitForCacheSync(signal, () => this.informer.hasSynced());
  }

  toString(): string {
    const r = this.resource;
    return `read kind: ${r.apiVersion}, Kind=${r.kind}${this.onlyMetadata ? ' (metadata)' : ''}`;
  }
}
