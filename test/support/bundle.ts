import { build } from 'esbuild';

/**
 * Bundles a TypeScript program that imports the workspace packages into one ES module Node can run, with the packages
 * taken from their sources (the kubescaffold-source condition), so a child process runs this checkout's code without
 * a build.
 */
export async function bundleForNode(entry: string, outfile: string): Promise<void> {
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    conditions: ['kubescaffold-source'],
    // Bundled CommonJS modules (prom-client) require() Node's own modules, which an ES module must create itself.
    banner: {
      js: "import { createRequire as __bundleCreateRequire } from 'node:module';\nconst require = __bundleCreateRequire(import.meta.url);",
    },
    logLevel: 'error',
  });
}
