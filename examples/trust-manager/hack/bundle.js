// Bundles the manager for its image: dist/cmd/main.js, as `npm run build` compiled it, and what it imports become
// bundle/manager.js with a source map, so that the image holds no node_modules. Run by `npm run bundle`, and by the
// Dockerfile's build stage.
import { build } from 'esbuild';

await build({
  entryPoints: { manager: 'dist/cmd/main.js' },
  outdir: 'bundle',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // Code that is imported only when used (proxy agents, HTTP/2) stays in its own chunk and is loaded then.
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  // Stack traces need the mappings only; the sources are in the repository, not in the image.
  sourcemap: 'linked',
  sourcesContent: false,
  // Bundled CommonJS modules (prom-client) require() Node's own modules, which an ES module must create itself.
  banner: { js: "import { createRequire as __ksCreateRequire } from 'node:module';\nconst require = __ksCreateRequire(import.meta.url);" },
  logLevel: 'warning',
});
