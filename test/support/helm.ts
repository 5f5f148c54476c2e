/**
 * The real helm, for checking the charts the helm/v2-alpha plugin writes: $HELM when set, else helm HELM_VERSION built
 * once from the Go module proxy (helm.sh/helm/v3/cmd/helm) into ~/.cache/kubescaffold/helm/<version>/helm.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { acquireLock } from '../../src/envtest/binaries/lock.js';
import { goEnv } from './kubebuilder.js';

const run = promisify(execFile);

/** v3.22.0's go.mod asks for go 1.26.0, which the machines have; v4 changed the CLI's flags the Makefile targets use. */
export const HELM_VERSION = 'v3.22.0';

/**
 * Building helm with a cold Go module and build cache: about 2.5 minutes on an idle two-core machine (measured: 2m20s
 * while other builds ran), much longer when every core is busy. Seconds once cached.
 */
export const HELM_BUILD_MS = 1_200_000;

/** The path of a helm binary, building it when needed (one build at a time: others wait on a lock); rejects saying why. */
export async function findHelm(): Promise<string> {
  if (process.env.HELM) return process.env.HELM;
  const dir = join(homedir(), '.cache', 'kubescaffold', 'helm', HELM_VERSION);
  const binary = join(dir, 'helm');
  if (existsSync(binary)) return binary;
  mkdirSync(dir, { recursive: true });
  // Two test files may ask at once: the second waits for the first's build, then finds the binary.
  const release = await acquireLock(join(dir, '.build.lock'));
  try {
    if (existsSync(binary)) return binary;
    // Built next to its final place, so that the rename cannot cross file systems.
    const work = join(dir, `.build-${process.pid}`);
    try {
      // The version is stamped as helm's Makefile does, so that `helm version` names it.
      await run(
        'go',
        [
          'install',
          '-ldflags',
          `-X helm.sh/helm/v3/internal/version.version=${HELM_VERSION}`,
          `helm.sh/helm/v3/cmd/helm@${HELM_VERSION}`,
        ],
        {
          cwd: dir,
          env: { ...goEnv(), GOFLAGS: '', GOBIN: work },
          maxBuffer: 64 * 1024 * 1024,
        },
      );
      renameSync(join(work, 'helm'), binary);
      return binary;
    } catch (err) {
      const e = err as { stderr?: string; message: string };
      throw new Error(
        `building helm ${HELM_VERSION} from the Go module proxy failed: ${e.stderr?.trim() || e.message}`,
      );
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  } finally {
    await release();
  }
}

/** Runs helm with `args` in `cwd`; rejects with its output when it fails. */
export async function helm(
  binary: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  try {
    const { stdout } = await run(binary, args, { cwd, env, maxBuffer: 64 * 1024 * 1024 });
    return stdout;
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`helm ${args.join(' ')} failed:\n${`${e.stdout ?? ''}${e.stderr ?? ''}`.trim() || e.message}`);
  }
}

/**
 * values.yaml without manager.healthProbe, which kubebuilder added in v4.16 (helm-health-probe-kubebuilder.test.ts
 * compares it with that version); the other files pass through.
 */
export function withoutHealthProbe(text: string): string {
  return text.replace(/ {2}## Health probes\.\n(?: {2}##.*\n)*(?: {2}healthProbe:\n(?: {4}.*\n)*)\n/, '');
}
