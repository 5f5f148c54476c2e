import type { KubeObject } from '../rest/types.js';
import { NAMESPACE_INDEX, type Indexer } from './store.js';

/** Anything with matches(labels), e.g. a parsed label selector. */
export interface LabelMatcher {
  /** True when the labels satisfy the matcher. */
  matches(labels: Readonly<Record<string, string>>): boolean;
}

function select<T extends KubeObject>(objs: T[], selector: LabelMatcher | undefined): T[] {
  if (!selector) return objs;
  return objs.filter((o) => selector.matches(o.metadata?.labels ?? {}));
}

/** Reads from an informer's indexer: everything, by label, or by namespace (client-go's generated listers). */
export class Lister<T extends KubeObject> {
  constructor(private readonly indexer: Indexer<T>) {}

  list(selector?: LabelMatcher): T[] {
    return select(this.indexer.list(), selector);
  }

  /** A cluster-scoped object by name. */
  get(name: string): T | undefined {
    return this.indexer.getByKey(name);
  }

  namespace(namespace: string): NamespaceLister<T> {
    return new NamespaceLister(this.indexer, namespace);
  }
}

/**
 * Reads one namespace of an informer's indexer (client-go's generated namespace listers), through the namespace index
 * when there is one.
 */
export class NamespaceLister<T extends KubeObject> {
  constructor(
    private readonly indexer: Indexer<T>,
    private readonly ns: string,
  ) {}

  /** The objects of this namespace, optionally only those whose labels match. */
  list(selector?: LabelMatcher): T[] {
    const objs = this.indexer.getIndexers()[NAMESPACE_INDEX]
      ? this.indexer.byIndex(NAMESPACE_INDEX, this.ns)
      : this.indexer.list().filter((o) => (o.metadata?.namespace ?? '') === this.ns);
    return select(objs, selector);
  }

  /** An object of this namespace by name; undefined when it is not in the cache. */
  get(name: string): T | undefined {
    return this.indexer.getByKey(`${this.ns}/${name}`);
  }
}
