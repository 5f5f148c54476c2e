import type { SortOptions } from '../kustomization.js';
import { gvkEquals, gvkSortString, idString, legacyTypeOrders, type Gvk } from '../resid.js';
import type { Resource } from '../resource.js';

/**
 * kustomize's output order. `kubectl kustomize` uses the legacy order unless the kustomization says otherwise:
 * Namespaces, CRDs, service accounts, RBAC, ConfigMaps, Services, Deployments ... first, webhook configurations last,
 * ties broken by group/version/kind, then namespace and name.
 */
export function sortResources(resources: Resource[], options: SortOptions | undefined): Resource[] {
  if (options?.order === 'fifo') return resources;
  const orders =
    options?.orderFirst || options?.orderLast
      ? legacyTypeOrders(options.orderFirst ?? [], options.orderLast ?? [])
      : legacyTypeOrders();
  const gvkLess = (a: Gvk, b: Gvk): number => {
    const ia = orders.get(a.kind) ?? 0;
    const ib = orders.get(b.kind) ?? 0;
    if (ia !== ib) return ia - ib;
    const sa = gvkSortString(a);
    const sb = gvkSortString(b);
    // Namespaces without a group sort in reverse, a quirk kustomize keeps for compatibility.
    if (a.kind === 'Namespace' && b.kind === 'Namespace' && (a.group === '' || b.group === '')) return compare(sb, sa);
    return compare(sa, sb);
  };
  const idSortString = (r: Resource) => {
    const id = r.curId();
    return [idString({ ...id, name: '', namespace: '' }).split('/')[0], id.namespace || '~X', id.name || '~N'].join(
      '|',
    );
  };
  return [...resources].sort((a, b) => {
    const ga = a.gvk();
    const gb = b.gvk();
    if (!gvkEquals(ga, gb)) return gvkLess(ga, gb);
    return compare(idSortString(a), idSortString(b));
  });
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
