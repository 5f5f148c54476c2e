import { spawnSync } from 'node:child_process';
import { ScaffoldError } from '../../errors.js';

/** What a git command printed, and its exit status. */
export interface GitResult {
  status: number;
  stdout: string;
  stderr: string;
}

/** Options of one git run: extra environment (a temporary index, a work tree), `-c key=value` settings, stdin. */
export interface GitOptions {
  env?: NodeJS.ProcessEnv;
  config?: readonly string[];
  /** Written to git's stdin. */
  input?: string;
}

/**
 * Git in one repository, run as a subprocess. `update` builds commits with plumbing (a temporary index, commit-tree,
 * merge-tree) so that the user's working tree, index and current branch stay as they are until the result is ready.
 */
export class Git {
  constructor(
    /** The directory git runs in (the repository's top level). */
    readonly cwd: string,
    /** `-c key=value` settings given to every command. */
    readonly config: readonly string[] = [],
  ) {}

  /** Runs git and returns what it printed, whatever its exit status. */
  try(args: readonly string[], options: GitOptions = {}): GitResult {
    const configArgs = [...this.config, ...(options.config ?? [])].flatMap((c) => ['-c', c]);
    const result = spawnSync('git', [...configArgs, ...args], {
      cwd: this.cwd,
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
      env: { ...process.env, ...options.env },
      input: options.input,
    });
    if (result.error) {
      throw new ScaffoldError(`cannot run git (${result.error.message}); install git and make sure it is on PATH`, {
        cause: result.error,
      });
    }
    return { status: result.status ?? 1, stdout: result.stdout, stderr: result.stderr };
  }

  /** Runs git and returns its stdout without the final newline; a non-zero exit throws with git's message. */
  run(args: readonly string[], options: GitOptions = {}): string {
    const result = this.try(args, options);
    if (result.status !== 0) throw gitFailed(args, result);
    return result.stdout.replace(/\n$/, '');
  }

  /** The commit a revision names, or undefined when it names none. */
  commitOf(rev: string): string | undefined {
    const result = this.try(['rev-parse', '--verify', '--quiet', `${rev}^{commit}`]);
    return result.status === 0 ? result.stdout.trim() : undefined;
  }

  /** Whether a local branch of this name exists. */
  hasBranch(name: string): boolean {
    return this.try(['show-ref', '--verify', '--quiet', `refs/heads/${name}`]).status === 0;
  }
}

/** The error of a git command that failed: the command and the last lines git printed. */
export function gitFailed(args: readonly string[], result: GitResult): ScaffoldError {
  const said = (result.stderr.trim() || result.stdout.trim()).split('\n').slice(-5).join('\n');
  return new ScaffoldError(`\`git ${args.join(' ')}\` failed (exit ${result.status}): ${said}`);
}
