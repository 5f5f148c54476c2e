// Types of bundle-for-node.js, for the tests that import it.
/** Bundles `entry` (a .ts file) into `outfile` (an ES module), the workspace packages taken from their sources. */
export function bundleForNode(entry: string, outfile: string): Promise<void>;
