import { builtinResources } from './builtins.js';
import { parseApiVersion } from './resource.js';
import type { GroupVersionKind, KubeObject, Resource } from './types.js';

const gvkKey = (g: string, v: string, k: string): string => `${g}/${v}/${k}`;

/** Known kinds and their resource descriptors (GVK → Resource), without asking the server. */
export class Scheme {
  private readonly byGvk = new Map<string, Resource>();

  /** Registers resources (e.g. an API version's generated descriptors); the last registration of a GVK wins. */
  add(...resources: Resource[]): this {
    for (const r of resources) this.byGvk.set(gvkKey(r.group, r.version, r.kind), r);
    return this;
  }

  resourceFor(gvk: GroupVersionKind): Resource | undefined {
    return this.byGvk.get(gvkKey(gvk.group, gvk.version, gvk.kind));
  }

  /** The descriptor for an object's apiVersion and kind, if registered. */
  resourceForObject<T extends KubeObject>(obj: T): Resource<T> | undefined {
    if (!obj.apiVersion || !obj.kind) return undefined;
    const { group, version } = parseApiVersion(obj.apiVersion);
    return this.byGvk.get(gvkKey(group, version, obj.kind)) as Resource<T> | undefined;
  }

  recognizes(gvk: GroupVersionKind): boolean {
    return this.byGvk.has(gvkKey(gvk.group, gvk.version, gvk.kind));
  }

  allResources(): Resource[] {
    return [...this.byGvk.values()];
  }
}

/** A Scheme holding the built-in kinds in builtins.ts. */
export function newScheme(): Scheme {
  return new Scheme().add(...builtinResources);
}
