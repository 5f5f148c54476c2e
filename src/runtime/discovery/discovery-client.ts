// What the API server serves, read from its discovery endpoints: what a RESTMapper maps kinds with and what tools
// check a cluster with. Over rest's HttpTransport, as client-go's discovery is over its rest client.
import { isNotFound } from '../rest/errors.js';
import type { HttpTransport } from '../rest/transport.js';

/**
 * One resource a group version serves, as discovery lists it (metav1.APIResource): its plural name, kind, scope and
 * verbs.
 */
export interface APIResource {
  /** The plural resource name in URLs, e.g. 'deployments' (or 'deployments/status' for a subresource). */
  name: string;
  /** The singular name, e.g. 'deployment'. */
  singularName?: string;
  /** Whether objects live in a namespace. */
  namespaced: boolean;
  /** The kind its objects carry. */
  kind: string;
  /** The verbs it supports: get, list, watch, create, update, patch, delete, deletecollection. */
  verbs: string[];
  /** Short names kubectl accepts, e.g. 'deploy'. */
  shortNames?: string[];
  /** Groupings such as 'all' that kubectl expands. */
  categories?: string[];
  /** Set for resources whose group/version differ from the list's (rare). */
  group?: string;
  /** See group. */
  version?: string;
}

/** One version of an API group (metav1.GroupVersionForDiscovery): 'group/version' and the version alone. */
export interface APIGroupVersion {
  /** 'group/version', or just 'version' for the core group. */
  groupVersion: string;
  /** The version alone, e.g. 'v1'. */
  version: string;
}

/** An API group and the versions the server serves of it (metav1.APIGroup). */
export interface APIGroup {
  /** '' for the core group. */
  name: string;
  /** The versions the server serves. */
  versions: APIGroupVersion[];
  /** The version the server prefers for this group. */
  preferredVersion?: APIGroupVersion;
}

/** The resources one group version serves (metav1.APIResourceList), from /api/v1 or /apis/group/version. */
export interface APIResourceList {
  /** 'group/version', or just 'version' for the core group. */
  groupVersion: string;
  /** The resources (and subresources) served. */
  resources: APIResource[];
}

/** The server's /version answer (version.Info). */
export interface ServerVersion {
  /** The major version, e.g. '1'. */
  major: string;
  /** The minor version, e.g. '37'. */
  minor: string;
  /** The full version, e.g. 'v1.37.1'. */
  gitVersion: string;
  /** The server's OS/architecture, e.g. 'linux/amd64'. */
  platform?: string;
}

/**
 * What one aggregated discovery answer holds (apidiscovery.k8s.io/v2 APIGroupDiscoveryList): every group under /api
 * or /apis with the resources of each of its versions, in one response.
 */
export interface AggregatedDiscovery {
  /** The groups, each with its versions in the server's preference order. */
  groups: APIGroup[];
  /** The resources of each group version whose discovery is current. */
  resources: APIResourceList[];
  /** Group versions the server marked Stale (an aggregated API server that is down): no resources for them. */
  stale: string[];
}

// Aggregated discovery first, v2 then v2beta1, the legacy documents otherwise (client-go's AcceptV2 order).
const AGGREGATED_ACCEPT = [
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
  'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList',
  'application/json',
].join(',');

/** apidiscovery.k8s.io/v2 as JSON: the parts read here. */
interface GroupDiscovery {
  metadata?: { name?: string };
  versions?: {
    version: string;
    freshness?: 'Current' | 'Stale';
    resources?: {
      resource: string;
      responseKind?: { group?: string; version?: string; kind?: string };
      scope: 'Namespaced' | 'Cluster';
      singularResource?: string;
      verbs?: string[];
      shortNames?: string[];
      categories?: string[];
      subresources?: {
        subresource: string;
        responseKind?: { group?: string; version?: string; kind?: string };
        verbs?: string[];
      }[];
    }[];
  }[];
}

/**
 * client-go's discovery client. Where the server supports aggregated discovery (Kubernetes 1.26+, on by default since
 * 1.27), one request to /api or /apis answers every group with its resources; elsewhere the legacy documents are read
 * per group version.
 */
export class DiscoveryClient {
  // Set once a server answered /api or /apis with a legacy document: the aggregated request is not sent again.
  private readonly legacyOnly = new Set<string>();

  constructor(private readonly transport: HttpTransport) {}

  /**
   * The aggregated discovery of the core group ('/api') or of every other group ('/apis'), in one request; undefined
   * when the server answers with the legacy document instead (then use serverGroup and
   * serverResourcesForGroupVersion).
   */
  async aggregated(root: '/api' | '/apis'): Promise<AggregatedDiscovery | undefined> {
    if (this.legacyOnly.has(root)) return undefined;
    let doc: { kind?: string; items?: GroupDiscovery[] };
    try {
      doc = await this.transport.requestJson({ method: 'GET', path: root, accept: AGGREGATED_ACCEPT });
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
    if (doc.kind !== 'APIGroupDiscoveryList') {
      this.legacyOnly.add(root);
      return undefined;
    }
    return fromAggregated(doc.items ?? []);
  }

  /**
   * Every group with the resources of each of its versions (client-go's ServerGroupsAndResources): two requests where
   * the server supports aggregated discovery, else the legacy documents, one per group version. A group version whose
   * discovery fails (an aggregated API that is down) is left out of `resources` and named in `failed`.
   */
  async serverGroupsAndResources(): Promise<{ groups: APIGroup[]; resources: APIResourceList[]; failed: string[] }> {
    const [core, named] = await Promise.all([this.aggregated('/api'), this.aggregated('/apis')]);
    if (core && named) {
      return {
        groups: [...core.groups, ...named.groups],
        resources: [...core.resources, ...named.resources],
        failed: [...core.stale, ...named.stale],
      };
    }
    const groups = await this.serverGroups();
    const gvs = groups.flatMap((g) => g.versions.map((v) => v.groupVersion));
    const lists = await Promise.allSettled(gvs.map((gv) => this.serverResourcesForGroupVersion(gv)));
    return {
      groups,
      resources: lists.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : [])),
      failed: gvs.filter((_, i) => lists[i]!.status === 'rejected'),
    };
  }

  serverVersion(): Promise<ServerVersion> {
    return this.transport.requestJson<ServerVersion>({ method: 'GET', path: '/version' });
  }

  /** Every API group, the core group ('') first. */
  async serverGroups(): Promise<APIGroup[]> {
    const [core, groups] = await Promise.all([
      this.transport.requestJson<{ versions?: string[] }>({ method: 'GET', path: '/api' }),
      this.transport.requestJson<{ groups?: APIGroup[] }>({ method: 'GET', path: '/apis' }),
    ]);
    return [coreGroup(core.versions ?? []), ...(groups.groups ?? [])];
  }

  /** One group, or undefined when the server does not serve it. */
  async serverGroup(name: string): Promise<APIGroup | undefined> {
    if (name === '') {
      const core = await this.transport.requestJson<{ versions?: string[] }>({ method: 'GET', path: '/api' });
      return coreGroup(core.versions ?? []);
    }
    try {
      return await this.transport.requestJson<APIGroup>({ method: 'GET', path: `/apis/${name}` });
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  }

  /** The resources of one group version ('v1' or 'apps/v1'); subresources ('pods/status') are included. */
  serverResourcesForGroupVersion(groupVersion: string): Promise<APIResourceList> {
    const path = groupVersion.includes('/') ? `/apis/${groupVersion}` : `/api/${groupVersion}`;
    return this.transport.requestJson<APIResourceList>({ method: 'GET', path });
  }
}

// client-go's aggregated-to-legacy conversion (discovery's SplitGroupsAndResources): resources take their kind from
// their responseKind, subresources become 'resource/subresource' entries.
function fromAggregated(items: GroupDiscovery[]): AggregatedDiscovery {
  const out: AggregatedDiscovery = { groups: [], resources: [], stale: [] };
  for (const item of items) {
    const name = item.metadata?.name ?? '';
    const versions = (item.versions ?? []).map((v) => ({
      groupVersion: name ? `${name}/${v.version}` : v.version,
      version: v.version,
    }));
    out.groups.push({ name, versions, preferredVersion: versions[0] });
    for (const [i, v] of (item.versions ?? []).entries()) {
      const groupVersion = versions[i]!.groupVersion;
      if (v.freshness === 'Stale') {
        out.stale.push(groupVersion);
        continue;
      }
      // Group and version named only where they differ from the list's, as the legacy documents do (the server
      // leaves them '' in a responseKind otherwise).
      const gv = (k: { group?: string; version?: string } | undefined): Partial<APIResource> => ({
        ...(k?.group && k.group !== name ? { group: k.group } : {}),
        ...(k?.version && k.version !== v.version ? { version: k.version } : {}),
      });
      const resources: APIResource[] = (v.resources ?? []).flatMap((r) => {
        const top: APIResource = {
          name: r.resource,
          singularName: r.singularResource,
          namespaced: r.scope === 'Namespaced',
          kind: r.responseKind?.kind ?? '',
          verbs: r.verbs ?? [],
          ...gv(r.responseKind),
          ...(r.shortNames ? { shortNames: r.shortNames } : {}),
          ...(r.categories ? { categories: r.categories } : {}),
        };
        const subs = (r.subresources ?? []).map((sub) => ({
          name: `${r.resource}/${sub.subresource}`,
          namespaced: top.namespaced,
          kind: sub.responseKind?.kind ?? '',
          verbs: sub.verbs ?? [],
          ...gv(sub.responseKind),
        }));
        return [top, ...subs];
      });
      out.resources.push({ groupVersion, resources });
    }
  }
  return out;
}

function coreGroup(versions: string[]): APIGroup {
  const gvs = versions.map((v) => ({ groupVersion: v, version: v }));
  return { name: '', versions: gvs, preferredVersion: gvs[0] };
}
