/**
 * Find-or-build, for `scaffold envtest use`: the binaries from KUBEBUILDER_ASSETS or the cache if
 * present, otherwise a build from the Go module proxy when a Go toolchain is on PATH.
 */
import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { BinariesNotFoundError, findBinaries, type Binaries, type FindBinariesOptions } from './binaries.js';
import { buildBinaries, goEnv } from './build.js';
import { defaultCacheRoot, ETCD, KUBE_APISERVER } from './paths.js';
import { DEFAULT_KUBERNETES_VERSION, isExact, parseVersion } from './versions.js';

export interface EnsureBinariesOptions extends FindBinariesOptions {
  etcdVersion?: string;
  signal?: AbortSignal;
  progress?: (line: string) => void;
}

/** Finds the binaries or, failing that, builds them into the cache; throws BinariesNotFoundError without Go. */
export async function ensureBinaries(opts: EnsureBinariesOptions = {}): Promise<Binaries & { built: boolean }> {
  try {
    return { ...(await findBinaries(opts)), built: false };
  } catch (err) {
    if (!(err instanceof BinariesNotFoundError)) throw err;
    const env = opts.env ?? process.env;
    // An explicit source that lacks the binaries is a mistake to report, not a reason to build elsewhere.
    if (env.KUBEBUILDER_ASSETS || opts.binaryAssetsDirectory) throw err;
    if (!lookPath('go', env)) throw new BinariesNotFoundError(`${err.message.split('\n')[0]} No \`go\` on PATH to build them.`);
    const cacheRoot = opts.cacheRoot ?? defaultCacheRoot(env);
    const version = await exactVersion(opts.version ?? DEFAULT_KUBERNETES_VERSION, env);
    const result = await buildBinaries({
      kubernetesVersion: version,
      etcdVersion: opts.etcdVersion,
      cacheRoot,
      signal: opts.signal,
      progress: opts.progress,
      env,
    });
    return { dir: result.dir, kubeApiserver: join(result.dir, KUBE_APISERVER), etcd: join(result.dir, ETCD), version, source: 'cache', built: true };
  }
}

const execFileAsync = promisify(execFile);

/** "1.37.1" stays; "1.36" becomes the newest 1.36.x release the module proxy knows. */
async function exactVersion(wanted: string, env: NodeJS.ProcessEnv): Promise<string> {
  const v = parseVersion(wanted);
  if (isExact(v)) return `${v.major}.${v.minor}.${v.patch}`;
  const query = `k8s.io/kubernetes@v${v.major}.${v.minor}`;
  try {
    const { stdout } = await execFileAsync('go', ['list', '-m', '-json', query], { env: goEnv(env), timeout: 120_000 });
    const found = (JSON.parse(stdout) as { Version?: string }).Version;
    if (found) return found.replace(/^v/, '');
  } catch {
    // fall through to the error below
  }
  throw new Error(`the Go module proxy lists no release for ${query}; pass an exact version such as ${DEFAULT_KUBERNETES_VERSION}`);
}

/** The path of an executable on PATH, like `which`. */
export function lookPath(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const p = join(dir, name);
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      // not here
    }
  }
  return undefined;
}
