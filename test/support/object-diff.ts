/** Differences between two JSON values, as the paths where they differ: for comparing objects as whole objects. */
import { differingPaths as pathsOf, displayPath, valueAt } from '../../src/importer/json-paths.js';

/** The paths (`.spec.versions[0].schema...`), with both values, where `a` and `b` differ; empty when they are equal. */
export function differingPaths(a: unknown, b: unknown): string[] {
  return pathsOf(a, b)
    .map((p) => `${displayPath(p) || '.'}: ${short(valueAt(a, p))} != ${short(valueAt(b, p))}`)
    .sort();
}

function short(v: unknown): string {
  const text = v === undefined ? 'undefined' : JSON.stringify(v);
  return text.length > 100 ? `${text.slice(0, 97)}...` : text;
}
