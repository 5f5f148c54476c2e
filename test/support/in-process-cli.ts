/**
 * `scaffold <argv>` run in this process (main(), as bin/scaffold.js runs it), with what it printed captured: faster
 * than a child process, and the test may mock modules of the CLI.
 */
import { vi } from 'vitest';
import { main } from '../../src/cli/index.js';

/** What a run of the CLI did. */
export interface CliRun {
  code: number;
  /** stdout and stderr together, as a user sees them. */
  output: string;
}

/** Runs `scaffold <argv>` in `cwd` in this process, with `env` added to the environment for the run. */
export async function scaffoldInProcess(
  cwd: string,
  argv: string[],
  env: Record<string, string> = {},
): Promise<CliRun> {
  const printed: string[] = [];
  const capture = (...args: unknown[]): void => void printed.push(args.map(String).join(' '));
  const spies = [
    vi.spyOn(console, 'log').mockImplementation(capture),
    vi.spyOn(console, 'warn').mockImplementation(capture),
    vi.spyOn(console, 'error').mockImplementation(capture),
    vi.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => (capture(String(s)), true)),
    vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => (capture(String(s)), true)),
  ];
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, env);
  const previous = process.cwd();
  process.chdir(cwd);
  try {
    const code = await main(['node', 'scaffold', ...argv]);
    return { code, output: printed.join('\n') };
  } finally {
    process.chdir(previous);
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    for (const spy of spies) spy.mockRestore();
  }
}
