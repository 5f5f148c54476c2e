// Bounds on a kubeconfig's YAML, as Go's yaml package has them. js-yaml resolves an alias to the same object, so a
// 2 KB "billion laughs" document parses at once into a small graph; it is whoever walks the result (merging, or an
// exec plugin's KUBERNETES_EXEC_INFO, which stringifies the cluster's extension) that expands it a billion times.

/** Larger files are refused before parsing: a kubeconfig is a few KiB, with embedded certificates a few dozen. */
export const MAX_KUBECONFIG_BYTES = 16 * 1024 * 1024;
/** Values a document may hold once its aliases are expanded (Go refuses "excessive aliasing" at a similar scale). */
const MAX_EXPANDED_VALUES = 1_000_000;
/** Nesting, which also ends a walk of an alias that refers to its own ancestor. */
const MAX_DEPTH = 1_000;

/**
 * Why a parsed document is refused: it expands, through aliases, to more values than any kubeconfig holds, or nests
 * deeper than MAX_DEPTH (an alias of its own ancestor nests without end); undefined when it is fine. Walks the
 * document as a consumer would, counting a shared value each time it is reached, and stops at the bound.
 */
export function yamlBoundsProblem(doc: unknown): string | undefined {
  let values = 0;
  const stack: Array<[unknown, number]> = [[doc, 0]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (++values > MAX_EXPANDED_VALUES)
      return `excessive aliasing: the document expands to more than ${MAX_EXPANDED_VALUES} values`;
    if (value === null || typeof value !== 'object') continue;
    if (depth >= MAX_DEPTH)
      return `nested more than ${MAX_DEPTH} levels deep (or an alias refers to a mapping that holds it)`;
    for (const child of Array.isArray(value) ? value : Object.values(value)) stack.push([child, depth + 1]);
  }
  return undefined;
}
