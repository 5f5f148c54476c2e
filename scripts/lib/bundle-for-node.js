// Bundles a TypeScript program that imports the workspace packages into one ES module Node can run, with the packages
// taken from their sources (the kubescaffold-source condition), so that a child process runs this checkout's code
// without a build. Used by the tests that run such a program as its own process, and by bench/leader-fencing.js.
import { basename, dirname, extname } from 'node:path';
import { build } from 'esbuild';

/**
 * Bundles `entry` (a .ts file) into `outfile` (an ES module). With `split`, as the scaffolded hack/bundle.js bundles a
 * manager for its image: code imported only when used (the proxy agents, HTTP/2) goes into chunks/ beside `outfile`
 * and is loaded then. In one file, the proxy agents' `import * as http from "http"` is evaluated at start-up, and on
 * Node 22 that loads undici for http.WebSocket: about 7 MiB of RSS a deployed manager does not have.
 */
export async function bundleForNode(entry, outfile, { split = false } = {}) {
  const where = split
    ? {
        entryPoints: { [basename(outfile, extname(outfile))]: entry },
        outdir: dirname(outfile),
        outExtension: { '.js': extname(outfile) },
        splitting: true,
        chunkNames: 'chunks/[name]-[hash]',
      }
    : { entryPoints: [entry], outfile };
  await build({
    ...where,
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
