/**
 * A port in examples/, built as its image builds it (the scaffolded hack/bundle.js: one esbuild bundle of the
 * manager), but from its TypeScript and this checkout's runtime sources: @kubescaffold/runtime resolves through the
 * repository's workspace (node_modules/@kubescaffold/runtime -> src/runtime) under the `kubescaffold-source`
 * condition, so no npm install is needed in the example and the port runs on the runtime under test.
 */
import { build } from 'esbuild';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/** The folder of examples/<name>. */
export function exampleDir(name: string): string {
  return join(repoRoot, 'examples', name);
}

/** Bundles examples/<name>/cmd/main.ts into `outDir` and returns the bundle's path (an ES module for `node`). */
export async function bundleExample(name: string, outDir: string): Promise<string> {
  const outfile = join(outDir, `${name}-manager.mjs`);
  await build({
    entryPoints: [join(exampleDir(name), 'cmd', 'main.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    conditions: ['kubescaffold-source'],
    sourcemap: 'inline',
    // As hack/bundle.js: CommonJS dependencies inside the ES module bundle call require.
    banner: {
      js: "import { createRequire as __ksCreateRequire } from 'node:module';\nconst require = __ksCreateRequire(import.meta.url);",
    },
    logLevel: 'error',
  });
  return outfile;
}
