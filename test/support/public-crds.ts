/**
 * CRDs of other projects, generated here by the real controller-gen from their Go modules (fetched from the Go module
 * proxy), for the round trip of `scaffold import crd`. Each project's CRDs are cached under
 * ~/.cache/kubescaffold/import-crds/<project>@<version>-controller-gen-<version>/, so only the first run builds them.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONTROLLER_GEN_VERSION, findControllerGen, hasGo } from '../../scripts/lib/controller-gen.js';

/** A project whose API packages controller-gen turns into CRDs. */
export interface PublicAPI {
  name: string;
  module: string;
  version: string;
  /** Package patterns under the module, e.g. `apis/...`. */
  packages: string[];
  /** Options of controller-gen's crd generator, e.g. allowDangerousTypes=true. */
  crdOptions?: string[];
}

/** Five projects, each from a different organisation, at versions the Go module proxy here serves. */
export const PUBLIC_APIS: readonly PublicAPI[] = [
  { name: 'gateway-api', module: 'sigs.k8s.io/gateway-api', version: 'v1.6.3', packages: ['apis/...'] },
  { name: 'cluster-api', module: 'sigs.k8s.io/cluster-api/api', version: 'v1.14.2', packages: ['core/...'] },
  {
    name: 'prometheus-operator',
    module: 'github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring',
    version: 'v0.95.2',
    packages: ['...'],
  },
  { name: 'network-policy-api', module: 'sigs.k8s.io/network-policy-api', version: 'v0.3.0', packages: ['apis/...'] },
  { name: 'frr-k8s', module: 'github.com/metallb/frr-k8s', version: 'v0.0.21', packages: ['api/...'] },
];

/** Why the CRDs cannot be generated here (undefined when they can), as peerAvailable wants it. */
export function publicCRDsMissing(): string | undefined {
  if (!hasGo()) return "Go is not installed (it builds controller-gen and loads the projects' Go modules)";
  return undefined;
}

/** The folder of the project's generated CRDs, generating them on first use; throws naming what failed. */
export function publicCRDs(api: PublicAPI): string {
  const root = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'kubescaffold', 'import-crds');
  const dir = join(root, `${api.name}@${api.version}-controller-gen-${CONTROLLER_GEN_VERSION}`);
  if (existsSync(join(dir, '.complete'))) return dir;
  const controllerGen = findControllerGen();
  if (!controllerGen) throw new Error(`controller-gen ${CONTROLLER_GEN_VERSION} cannot be built here`);
  mkdirSync(root, { recursive: true });
  const work = mkdtempSync(join(tmpdir(), `ks-crds-${api.name}-`));
  const env = { ...process.env, GOWORK: 'off', GOFLAGS: '-mod=mod', GOTOOLCHAIN: 'local', CGO_ENABLED: '0' };
  const run = (cmd: string, args: string[]): void => {
    try {
      execFileSync(cmd, args, { cwd: work, env, stdio: 'pipe', timeout: 600_000 });
    } catch (err) {
      const e = err as { stderr?: Buffer };
      throw new Error(
        `${cmd} ${args.join(' ')} failed for ${api.module}@${api.version}: ${e.stderr?.toString().slice(-2000) ?? String(err)}`,
      );
    }
  };
  try {
    run('go', ['mod', 'init', 'example.com/crds']);
    run('go', ['get', `${api.module}@${api.version}`]);
    // a blank import keeps the module (and what its packages need) in go.mod through tidy
    const pkgs = execFileSync('go', ['list', ...api.packages.map((p) => `${api.module}/${p}`)], {
      cwd: work,
      env,
      encoding: 'utf8',
    })
      .split('\n')
      .filter((l) => l !== '');
    writeFileSync(join(work, 'tools.go'), `package crds\n\nimport (\n${pkgs.map((p) => `\t_ "${p}"`).join('\n')}\n)\n`);
    run('go', ['mod', 'tidy']);
    const out = join(work, 'out');
    const crd = api.crdOptions && api.crdOptions.length > 0 ? `crd:${api.crdOptions.join(',')}` : 'crd';
    run(controllerGen, [crd, `paths=${pkgs.join(';')}`, `output:crd:artifacts:config=${out}`]);
    if (!existsSync(out) || readdirSync(out).length === 0)
      throw new Error(`controller-gen wrote no CRD for ${api.module}@${api.version}`);
    writeFileSync(join(out, '.complete'), `${api.module}@${api.version}\n`);
    rmSync(dir, { recursive: true, force: true });
    renameSync(out, dir);
    return dir;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
