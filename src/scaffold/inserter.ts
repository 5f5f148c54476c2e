/**
 * kubebuilder's insertion rules: a fragment goes directly above its `+kubebuilder:scaffold:<name>` marker line, and
 * a fragment whose lines (trimmed) already stand consecutively in the file is not inserted again.
 */

/** The comment token that carries markers in a file of this name, or undefined when the file type has none. */
export function commentToken(path: string): string | undefined {
  if (/\.(ts|js|mts|cts)$/.test(path)) return '//';
  if (/\.ya?ml$/.test(path) || /(^|\/)(Makefile|Dockerfile)$/.test(path)) return '#';
  return undefined;
}

export function markerText(name: string): string {
  return `+kubebuilder:scaffold:${name}`;
}

function isMarkerLine(line: string, token: string, name: string): boolean {
  const trimmed = line.trim();
  return trimmed.startsWith(token) && trimmed.slice(token.length).trim() === markerText(name);
}

/** True when the fragment's trimmed lines appear, in order and adjacent, among the file's trimmed lines. */
export function fragmentExists(content: string, fragment: string): boolean {
  const wanted = fragment
    .split('\n')
    .map((l) => l.trim())
    .filter((l, i, all) => l !== '' || (i > 0 && i < all.length - 1));
  if (wanted.length === 0) return true;
  const lines = content.split('\n').map((l) => l.trim());
  outer: for (let start = 0; start + wanted.length <= lines.length; start++) {
    for (let k = 0; k < wanted.length; k++) if (lines[start + k] !== wanted[k]) continue outer;
    return true;
  }
  return false;
}

export interface InsertResult {
  content: string;
  /** Markers that were asked for but not found in the file. */
  missingMarkers: string[];
}

/**
 * Inserts each marker's fragments above every line holding that marker, indented like the marker, skipping
 * fragments already present.
 */
export function insertFragments(path: string, content: string, fragments: Record<string, string[]>): InsertResult {
  const token = commentToken(path);
  if (token === undefined) throw new Error(`${path}: this file type cannot hold +kubebuilder:scaffold markers`);
  const missingMarkers: string[] = [];
  let lines = content.split('\n');
  for (const [name, list] of Object.entries(fragments)) {
    if (!lines.some((line) => isMarkerLine(line, token, name))) {
      missingMarkers.push(name);
      continue;
    }
    const fresh = list.filter((fragment) => !fragmentExists(lines.join('\n'), fragment));
    if (fresh.length === 0) continue;
    const next: string[] = [];
    for (const line of lines) {
      if (isMarkerLine(line, token, name)) {
        const indent = /^\s*/.exec(line)?.[0] ?? '';
        for (const fragment of fresh) {
          for (const fragmentLine of fragment.replace(/\n$/, '').split('\n'))
            next.push(fragmentLine === '' ? '' : indent + fragmentLine);
        }
      }
      next.push(line);
    }
    lines = next;
  }
  return { content: lines.join('\n'), missingMarkers };
}
