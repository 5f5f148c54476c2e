/** Differences between two JSON values, as the paths where they differ: for comparing objects as whole objects. */

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The paths (`.spec.versions[0].schema...`) where `a` and `b` differ; empty when they are equal. */
export function differingPaths(a: unknown, b: unknown, path = ''): string[] {
  if (Array.isArray(a) && Array.isArray(b)) {
    const out: string[] = [];
    for (let i = 0; i < Math.max(a.length, b.length); i++) out.push(...differingPaths(a[i], b[i], `${path}[${i}]`));
    return out;
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const out: string[] = [];
    for (const k of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort())
      out.push(...differingPaths(a[k], b[k], `${path}.${k}`));
    return out;
  }
  return Object.is(a, b) ? [] : [`${path || '.'}: ${short(a)} != ${short(b)}`];
}

function short(v: unknown): string {
  const text = v === undefined ? 'undefined' : JSON.stringify(v);
  return text.length > 100 ? `${text.slice(0, 97)}...` : text;
}
