/**
 * What a request that the API server answered 403 Forbidden asked for, in RBAC's terms (verb, API group, resource,
 * subresource, namespace, name), read from the request itself as the API server's RequestInfo reads it. Controllers
 * use it to log one message per missing permission, and tools to name the marker that grants it.
 */

/** The RBAC attributes of one request. */
export interface RequestPermission {
  /** The RBAC verb: get, list, watch, create, update, patch, delete or deletecollection. */
  verb: string;
  /** '' for the core group. */
  group: string;
  /** The plural resource name. */
  resource: string;
  /** The subresource, e.g. 'status'. */
  subresource?: string;
  /** The namespace of the request; unset for cluster-scoped or all-namespace requests. */
  namespace?: string;
  /** The object's name, for requests on one object. */
  name?: string;
}

const VERBS: Record<string, string> = { POST: 'create', PUT: 'update', PATCH: 'patch' };

/** The RBAC attributes of `method path?query`, or undefined for a path that names no resource (/version, /metrics). */
export function requestPermission(method: string, path: string, watch = false): RequestPermission | undefined {
  const parts = path
    .split('?')[0]!
    .split('/')
    .filter((p) => p !== '')
    .map(decodeURIComponent);
  let rest: string[];
  let group: string;
  if (parts[0] === 'api' && parts.length >= 3) {
    group = '';
    rest = parts.slice(2);
  } else if (parts[0] === 'apis' && parts.length >= 4) {
    group = parts[1]!;
    rest = parts.slice(3);
  } else {
    return undefined;
  }
  let namespace: string | undefined;
  // /namespaces/{ns}/{resource}/... ; /namespaces/{name} alone is the namespace object itself.
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const [resource, name, subresource] = rest;
  if (!resource) return undefined;
  const verb =
    method === 'GET'
      ? watch
        ? 'watch'
        : name === undefined
          ? 'list'
          : 'get'
      : method === 'DELETE'
        ? name === undefined
          ? 'deletecollection'
          : 'delete'
        : (VERBS[method] ?? method.toLowerCase());
  return {
    verb,
    group,
    resource,
    ...(subresource !== undefined ? { subresource } : {}),
    ...(namespace !== undefined ? { namespace } : {}),
    ...(name !== undefined ? { name } : {}),
  };
}

/** A key that is the same for every request needing the same permission (names do not matter to RBAC rules here). */
export function permissionKey(p: RequestPermission): string {
  return `${p.verb} ${p.group}/${p.resource}${p.subresource ? `/${p.subresource}` : ''} ${p.namespace ?? '*'}`;
}

/**
 * Remembers which missing permissions were already logged, so that a retried request logs its Forbidden answer once
 * (at error level) and then only at debug level.
 */
export class PermissionLogDedup {
  private readonly seen = new Set<string>();

  /** For a Forbidden answer: the permission it lacked, and whether this is the first time it is seen (recorded). */
  note(e: unknown): { permission: RequestPermission; first: boolean } | undefined {
    const permission = (e as { forbidden?: RequestPermission } | undefined)?.forbidden;
    if (!permission) return undefined;
    const key = permissionKey(permission);
    const first = !this.seen.has(key);
    this.seen.add(key);
    return { permission, first };
  }
}
