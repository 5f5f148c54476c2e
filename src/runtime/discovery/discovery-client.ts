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

/** client-go's discovery client over the legacy (per group-version) discovery endpoints. */
export class DiscoveryClient {
  constructor(private readonly transport: HttpTransport) {}

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

function coreGroup(versions: string[]): APIGroup {
  const gvs = versions.map((v) => ({ groupVersion: v, version: v }));
  return { name: '', versions: gvs, preferredVersion: gvs[0] };
}
