import type { KubeObject } from '../rest/types.js';
import { NAMESPACE_INDEX, type Indexer } from './store.js';

/** Anything with matches(labels), e.g. a parsed label selector. */
export interface LabelMatcher {
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

export class NamespaceLister<T extends KubeObject> {
  constructor(
    private readonly indexer: Indexer<T>,
    private readonly ns: string,
  ) {}

  list(selector?: LabelMatcher): T[] {
    const objs = this.indexer.getIndexers()[NAMESPACE_INDEX]
      ? this.indexer.byIndex(NAMESPACE_INDEX, this.ns)
      : this.indexer.list().filter((o) => (o.metadata?.namespace ?? '') === this.ns);
    return select(objs, selector);
  }

  get(name: string): T | undefined {
    return this.indexer.getByKey(`${this.ns}/${name}`);
  }
}
