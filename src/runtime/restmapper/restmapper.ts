// Kinds to resources and back, from discovery (client-go's restmapper, controller-runtime's dynamic RESTMapper).
import type { DiscoveryClient, APIResource } from '../discovery/discovery-client.js';
import { defineResource, parseApiVersion } from '../rest/resource.js';
import type { GroupVersionKind, GroupVersionResource, KubeObject, Resource } from '../rest/types.js';
import { InvalidObjectError, findInChain } from '../errors.js';

/** The server serves no resource for the requested kind or resource name. */
export class NoKindMatchError extends Error {
  constructor(what: string) {
    super(`no matches for ${what}`);
    this.name = 'NoKindMatchError';
  }
}

/** True for a NoKindMatchError: the server serves no such kind or resource (meta.IsNoMatchError). */
export function isNoMatch(e: unknown): e is NoKindMatchError {
  return findInChain(e, NoKindMatchError) !== undefined;
}

interface GroupMapping {
  preferredVersion: string | undefined;
  /** Versions in the server's preference order. */
  versions: string[];
  resources: Map<string, Resource[]>;
}

/**
 * Maps kinds to resources (GVK ↔ GVR) from discovery. Groups load lazily on first use and reload on a miss, so
 * CRDs installed after start are found (controller-runtime's dynamic RESTMapper does the same).
 */
export class RESTMapper {
  private readonly groups = new Map<string, GroupMapping>();
  private readonly loading = new Map<string, Promise<GroupMapping | undefined>>();

  constructor(private readonly discovery: DiscoveryClient) {}

  /** The resource serving kind; without a version, the group's preferred version that serves it. */
  async resourceFor(gvk: { group: string; version?: string; kind: string }): Promise<Resource> {
    const find = (m: GroupMapping | undefined): Resource | undefined =>
      m && pick(m, gvk.version, (r) => r.kind === gvk.kind);
    const found = find(this.groups.get(gvk.group)) ?? find(await this.reload(gvk.group));
    if (!found)
      throw new NoKindMatchError(
        `kind "${gvk.kind}" in version "${gvk.group ? gvk.group + '/' : ''}${gvk.version ?? '*'}"`,
      );
    return found;
  }

  /** The resource for an object's apiVersion and kind. */
  resourceForObject<T extends KubeObject>(obj: T): Promise<Resource<T>> {
    if (!obj.apiVersion || !obj.kind) throw new InvalidObjectError('the object has no apiVersion or kind');
    return this.resourceFor({ ...parseApiVersion(obj.apiVersion), kind: obj.kind }) as Promise<Resource<T>>;
  }

  /** The resource with this plural name. */
  async resourceForName(gvr: { group: string; version?: string; resource: string }): Promise<Resource> {
    const name = gvr.resource.toLowerCase();
    const find = (m: GroupMapping | undefined): Resource | undefined =>
      m && pick(m, gvr.version, (r) => r.plural === name);
    const found = find(this.groups.get(gvr.group)) ?? find(await this.reload(gvr.group));
    if (!found) throw new NoKindMatchError(`resource "${gvr.resource}" in group "${gvr.group}"`);
    return found;
  }

  async kindFor(gvr: GroupVersionResource): Promise<GroupVersionKind> {
    const r = await this.resourceForName(gvr);
    return { group: r.group, version: r.version, kind: r.kind };
  }

  async isNamespaced(gvk: GroupVersionKind): Promise<boolean> {
    return (await this.resourceFor(gvk)).namespaced;
  }

  /** Forgets everything; the next lookups rediscover. */
  reset(): void {
    this.groups.clear();
  }

  private reload(group: string): Promise<GroupMapping | undefined> {
    let p = this.loading.get(group);
    if (!p) {
      p = this.load(group).finally(() => this.loading.delete(group));
      this.loading.set(group, p);
    }
    return p;
  }

  private async load(group: string): Promise<GroupMapping | undefined> {
    // One request for every group where the server serves aggregated discovery: each group it names is mapped.
    const aggregated = await this.discovery.aggregated(group === '' ? '/api' : '/apis');
    if (aggregated) {
      const lists = new Map(aggregated.resources.map((l) => [l.groupVersion, l]));
      for (const g of aggregated.groups) {
        const resources = new Map<string, Resource[]>();
        for (const v of g.versions) {
          const list = lists.get(v.groupVersion);
          if (list) resources.set(v.version, toResources(g.name, v.version, list.resources));
        }
        this.groups.set(g.name, {
          preferredVersion: g.preferredVersion?.version,
          versions: g.versions.map((v) => v.version),
          resources,
        });
      }
      if (!aggregated.groups.some((g) => g.name === group)) this.groups.delete(group);
      return this.groups.get(group);
    }
    const g = await this.discovery.serverGroup(group);
    if (!g) {
      this.groups.delete(group);
      return undefined;
    }
    const lists = await Promise.allSettled(
      g.versions.map((v) => this.discovery.serverResourcesForGroupVersion(v.groupVersion)),
    );
    const resources = new Map<string, Resource[]>();
    g.versions.forEach((v, i) => {
      const r = lists[i];
      // An aggregated API that is down fails its version only; the others stay usable.
      if (r?.status === 'fulfilled') resources.set(v.version, toResources(group, v.version, r.value.resources ?? []));
    });
    const mapping: GroupMapping = {
      preferredVersion: g.preferredVersion?.version,
      versions: g.versions.map((v) => v.version),
      resources,
    };
    this.groups.set(group, mapping);
    return mapping;
  }
}

function pick(m: GroupMapping, version: string | undefined, match: (r: Resource) => boolean): Resource | undefined {
  if (version) return m.resources.get(version)?.find(match);
  const order = m.preferredVersion
    ? [m.preferredVersion, ...m.versions.filter((v) => v !== m.preferredVersion)]
    : m.versions;
  for (const v of order) {
    const r = m.resources.get(v)?.find(match);
    if (r) return r;
  }
  return undefined;
}

function toResources(group: string, version: string, list: APIResource[]): Resource[] {
  return list
    .filter((r) => !r.name.includes('/'))
    .map((r) =>
      defineResource({
        group: r.group ?? group,
        version: r.version ?? version,
        kind: r.kind,
        plural: r.name,
        namespaced: r.namespaced,
      }),
    );
}
