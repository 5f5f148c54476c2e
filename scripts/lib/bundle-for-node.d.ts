// Types of bundle-for-node.js, for the tests that import it.
/**
 * Bundles `entry` (a .ts file) into `outfile` (an ES module), the workspace packages taken from their sources; with
 * `split`, code imported only when used goes into chunks/ beside it, as the scaffolded image's bundle does.
 */
export function bundleForNode(entry: string, outfile: string, opts?: { split?: boolean }): Promise<void>;
