/**
 * The real kubebuilder, for comparing scaffolded files with its output: $KUBEBUILDER when set, else v4.15.0 built once
 * from the Go module proxy into ~/.cache/kubescaffold/kubebuilder/<version>.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { tempDir } from './files.js';

export const KUBEBUILDER_VERSION = 'v4.15.0';

/** The config/ files init writes that kubebuilder has no counterpart of: the [SHARDING] sections (commented out). */
export const OUR_CONFIG_FILES = [
  'config/default/manager_sharding_patch.yaml',
  'config/sharding/kustomization.yaml',
  'config/sharding/pdb.yaml',
];

/** The environment kubebuilder and the go commands it runs need: no surrounding go.work, modules from the proxy. */
export function goEnv(): NodeJS.ProcessEnv {
  return { ...process.env, GOWORK: 'off', GOFLAGS: '-mod=mod' };
}

/** Runs `command` (kubebuilder, go) with `args` in `cwd` with goEnv(); a failure names the command and carries its output. */
export function runWithGoEnv(command: string, args: string[], cwd: string): void {
  try {
    execFileSync(command, args, { cwd, env: goEnv(), stdio: 'pipe' });
  } catch (err) {
    const e = err as { stdout?: Buffer; stderr?: Buffer; message: string };
    const output = `${e.stdout?.toString() ?? ''}${e.stderr?.toString() ?? ''}`.trim();
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${output || e.message}`);
  }
}

/**
 * The path of a kubebuilder binary, building it when needed; throws saying why when it cannot. $KUBEBUILDER stands for
 * the default version only.
 */
export function findKubebuilder(version = KUBEBUILDER_VERSION): string {
  if (process.env.KUBEBUILDER && version === KUBEBUILDER_VERSION) return process.env.KUBEBUILDER;
  const dir = join(homedir(), '.cache', 'kubescaffold', 'kubebuilder', version);
  const binary = join(dir, 'kubebuilder');
  if (existsSync(binary)) return binary;
  const work = tempDir('ks-kubebuilder-build-');
  try {
    const env = goEnv();
    // kubebuilder's go.mod has replace directives, so `go install pkg@version` is refused; a tool dependency of a
    // throwaway module builds it instead.
    writeFileSync(join(work.path, 'go.mod'), 'module example.com/kubebuilder-tool\n\ngo 1.24\n');
    execFileSync('go', ['get', '-tool', `sigs.k8s.io/kubebuilder/v4@${version}`], {
      cwd: work.path,
      env,
      stdio: 'pipe',
    });
    execFileSync('go', ['build', '-o', join(work.path, 'kubebuilder'), 'sigs.k8s.io/kubebuilder/v4'], {
      cwd: work.path,
      env,
      stdio: 'pipe',
    });
    mkdirSync(dir, { recursive: true });
    renameSync(join(work.path, 'kubebuilder'), binary);
    return binary;
  } catch (err) {
    const e = err as { stderr?: Buffer; message: string };
    throw new Error(`building kubebuilder ${version} failed: ${e.stderr?.toString().trim() || e.message}`);
  } finally {
    work.remove();
  }
}
