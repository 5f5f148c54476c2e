/**
 * What the API server leaves out when it stores a CRD: outside the schemas, every field of the CRD's Go types is
 * omitempty, so a null, an empty list or an empty map there (`categories: []`, `additionalPrinterColumns: []`,
 * `labels: {}`, `deprecationWarning: null`) is stored as absent, and the types need not say it. Inside a schema an
 * empty value can mean something (`default: {}`, `enum`), and so can `subresources` (`status: {}` turns the status
 * subresource on), so those are kept as written.
 */
export function asStored<T>(crd: T): T {
  return dropEmpty(crd) as T;
}

function dropEmpty(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(dropEmpty);
  if (v === null || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const [k, value] of Object.entries(v)) {
    if (k === 'openAPIV3Schema' || k === 'subresources') {
      out[k] = value;
      continue;
    }
    const kept = dropEmpty(value);
    const empty =
      kept === null ||
      (Array.isArray(kept) && kept.length === 0) ||
      (typeof kept === 'object' && kept !== null && !Array.isArray(kept) && Object.keys(kept).length === 0);
    if (!empty) out[k] = kept;
  }
  return out;
}
