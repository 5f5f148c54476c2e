/**
 * Finds (or builds, once, from the Go module proxy) the real controller-gen, cached beside the control-plane
 * binaries in ~/.cache/kubescaffold/controller-gen/<version>/: for the parity tests, the manifests benchmark and
 * scripts/regenerate-k8s-schemas.js. CONTROLLER_GEN overrides the location. A build tool: not part of the package.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export const CONTROLLER_GEN_VERSION = 'v0.21.0';
/** The Kubernetes modules the Go twins import. */
export const K8S_MODULE_VERSION = 'v0.37.1';

export function hasGo() {
  return spawnSync('go', ['version'], { stdio: 'ignore' }).status === 0;
}

/** The controller-gen binary, or undefined when it is neither present nor buildable here. */
export function findControllerGen() {
  if (process.env.CONTROLLER_GEN) return process.env.CONTROLLER_GEN;
  const dir = join(
    process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'),
    'kubescaffold',
    'controller-gen',
    CONTROLLER_GEN_VERSION,
  );
  const bin = join(dir, 'controller-gen');
  if (existsSync(bin)) return bin;
  if (!hasGo()) return undefined;
  mkdirSync(dir, { recursive: true });
  const r = spawnSync('go', ['install', `sigs.k8s.io/controller-tools/cmd/controller-gen@${CONTROLLER_GEN_VERSION}`], {
    env: { ...process.env, GOBIN: dir, GOWORK: 'off', CGO_ENABLED: '0' },
    encoding: 'utf8',
    timeout: 600_000,
  });
  if (r.status !== 0) throw new Error(`building controller-gen failed:\n${r.stderr}`);
  return bin;
}

/** Makes `dir` (a copy of a twin) a Go module that can import apimachinery and apiextensions. */
export function prepareGoModule(dir, module) {
  const env = { ...process.env, GOWORK: 'off', GOFLAGS: '-mod=mod' };
  execFileSync('go', ['mod', 'init', module], { cwd: dir, env, stdio: 'ignore' });
  execFileSync(
    'go',
    [
      'get',
      `k8s.io/apimachinery@${K8S_MODULE_VERSION}`,
      `k8s.io/apiextensions-apiserver@${K8S_MODULE_VERSION}`,
      `k8s.io/api@${K8S_MODULE_VERSION}`,
    ],
    {
      cwd: dir,
      env,
      stdio: 'ignore',
    },
  );
  execFileSync('go', ['mod', 'tidy'], { cwd: dir, env, stdio: 'ignore' });
}

/**
 * The CRDs the real controller-gen writes for Go packages of a public module from the module proxy, as
 * { file name: YAML }. See publicApiCRDDir.
 * @param {{ module: string, version: string, packages: string[], crdOptions?: string[] }} api
 * @param {string} controllerGen the binary
 * @returns {Record<string, string>}
 */
export function publicApiCRDs(api, controllerGen) {
  const dir = publicApiCRDDir(api, controllerGen);
  return Object.fromEntries(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f), 'utf8')]));
}

/**
 * The folder of the CRDs the real controller-gen writes for Go packages (import paths, `...` patterns too) of a public
 * module from the module proxy. Run once per module version, package set and controller-gen version, then read from
 * ~/.cache/kubescaffold/public-api-crds/ (nothing of the module is kept in the repository). Shared by the parity test
 * on the public APIs and the round trip of `scaffold import crd`.
 * @param {{ module: string, version: string, packages: string[], crdOptions?: string[] }} api
 * @param {string} controllerGen the binary
 * @returns {string}
 */
export function publicApiCRDDir(api, controllerGen) {
  // A readable name and an exact key: the module and version, and a hash of everything that decides the output.
  const hash = createHash('sha256')
    .update(JSON.stringify([api, CONTROLLER_GEN_VERSION, K8S_MODULE_VERSION]))
    .digest('hex')
    .slice(0, 16);
  const key = `${api.module.split('/').pop()}@${api.version}-${hash}`;
  const cache = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'kubescaffold', 'public-api-crds', key);
  if (!existsSync(cache)) {
    const work = mkdtempSync(join(tmpdir(), 'ks-public-api-'));
    try {
      const env = { ...process.env, GOWORK: 'off', GOFLAGS: '-mod=mod' };
      execFileSync('go', ['mod', 'init', 'example.com/public-api-parity'], { cwd: work, env, stdio: 'pipe' });
      // Each package by its path: `go get` of the module alone leaves out the checksums of what its packages import.
      execFileSync('go', ['get', ...api.packages.map((p) => `${p}@${api.version}`)], { cwd: work, env, stdio: 'pipe' });
      // k8s.io/api at least at the version whose schemas src/crd/k8s_schemas bundles: a module that requires an older
      // one gets the same core types on both sides (src/markers/README.md lists this difference).
      const k8sApi = execFileSync('go', ['list', '-m', '-f', '{{.Version}}', 'k8s.io/api'], { cwd: work, env })
        .toString()
        .trim();
      if (olderVersion(k8sApi, K8S_MODULE_VERSION))
        execFileSync('go', ['get', `k8s.io/api@${K8S_MODULE_VERSION}`], { cwd: work, env, stdio: 'pipe' });
      const crd = api.crdOptions?.length ? `crd:${api.crdOptions.join(',')}` : 'crd';
      const paths = api.packages.map((p) => `paths=${p}`);
      execFileSync(controllerGen, [crd, ...paths, 'output:crd:artifacts:config=out'], {
        cwd: work,
        env,
        stdio: 'pipe',
      });
      mkdirSync(dirname(cache), { recursive: true });
      // Renamed into place whole, so that an interrupted run leaves no half-filled cache entry.
      renameSync(join(work, 'out'), cache);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
  return cache;
}

/** Whether release version `a` (vX.Y.Z) is older than `b`; a version that is not vX.Y.Z is not compared. */
function olderVersion(a, b) {
  const parse = (v) => (/^v(\d+)\.(\d+)\.(\d+)/.exec(v) ?? []).slice(1).map(Number);
  const [x, y] = [parse(a), parse(b)];
  if (x.length === 0) return false;
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] < y[i];
  return false;
}
