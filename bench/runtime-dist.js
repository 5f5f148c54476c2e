// Where the build under test is, and loading the runtime and envtest from it. Kept apart from runtime-lib.js so that
// a peer process (bench/runtime-reconcile-child.js) loads nothing a manager would not.
//
// The runtime is the package @kubescaffold/runtime (src/runtime, built into src/runtime/dist: entry points
// dist/index.js and dist/<subpath>/index.js), envtest is @kubescaffold/envtest (src/envtest/dist/index.js), and the
// CLI's build is dist/ at the root. KUBESCAFFOLD_DIST=<dir> measures another runtime build: the runtime package's own
// dist/ (holding index.js and manager/index.js), a checkout's root dist/ (the runtime then is ../src/runtime/dist),
// or a root dist/ from before the runtime became its own package (dist/runtime/, dist/envtest/); envtest and the
// CLI's helpers come from the same build when it has them, else from this checkout.
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const here = (path) => new URL(path, import.meta.url).href;
const dirUrl = (dir) => pathToFileURL(dir.replace(/\/?$/, '/')).href;
const has = (base, path) => existsSync(new URL(path, base));

function layout(override) {
  const ours = { runtime: here('../src/runtime/dist/'), envtest: here('../src/envtest/dist/'), cli: here('../dist/') };
  if (!override) return ours;
  const dir = dirUrl(override);
  // The runtime package's build itself.
  if (has(dir, 'manager/index.js')) return { ...ours, runtime: dir };
  // A root dist/ from before the split: the runtime and envtest were directories of the CLI's build.
  if (has(dir, 'runtime/manager/index.js'))
    return { runtime: new URL('runtime/', dir).href, envtest: new URL('envtest/', dir).href, cli: dir };
  // A checkout's root dist/ after the split: the workspaces' builds are beside it, under src/.
  if (has(dir, '../src/runtime/dist/manager/index.js')) {
    const envtest = new URL('../src/envtest/dist/', dir).href;
    return {
      runtime: new URL('../src/runtime/dist/', dir).href,
      envtest: has(envtest, 'index.js') ? envtest : ours.envtest,
      cli: dir,
    };
  }
  throw new Error(
    `KUBESCAFFOLD_DIST=${override}: neither a runtime build (manager/index.js) nor a checkout's dist/ (runtime/ inside, or ../src/runtime/dist beside it)`,
  );
}

/** File URLs (ending in /) of the builds under test: the runtime's, envtest's, and the CLI's. */
export const dists = layout(process.env.KUBESCAFFOLD_DIST);

/**
 * The runtime's top-level entry point merged with the subpaths named (@kubescaffold/runtime/<name>), as one object.
 * A peer imports only what it uses, as an operator would: each subpath loaded costs memory.
 */
export async function importRuntime(...subpaths) {
  const modules = await Promise.all(
    ['index', ...subpaths.map((s) => `${s}/index`)].map((m) => import(new URL(`${m}.js`, dists.runtime).href)),
  );
  return Object.assign({}, ...modules);
}

/** @kubescaffold/envtest's entry point. */
export const importEnvtest = () => import(new URL('index.js', dists.envtest).href);

/** A module of the CLI's build (dist/<path>), e.g. cluster/container.js. */
export const importCli = (path) => import(new URL(path, dists.cli).href);
