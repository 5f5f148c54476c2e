// Bundles a TypeScript program that imports the workspace packages into one ES module Node can run, with the packages
// taken from their sources (the kubescaffold-source condition), so that a child process runs this checkout's code
// without a build. Used by the tests that run such a program as its own process, and by bench/leader-fencing.js.
import { build } from 'esbuild';

/** Bundles `entry` (a .ts file) into `outfile` (an ES module). */
export async function bundleForNode(entry, outfile) {
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
