/** Running the CLI, npm and a scaffolded project's own commands from e2e tests. */
import { spawn, spawnSync } from 'node:child_process';

/** Milliseconds in n minutes: e2e steps get generous bounds for a loaded two-core machine; none asserts speed. */
export const minutes = (n: number): number => n * 60_000;

/** What a command did: its exit status (null when killed) and its stdout and stderr together. */
export interface CommandResult {
  status: number | null;
  output: string;
}

/** Runs a command to its end, as CI would (CI=true, NO_COLOR=1), with extra environment variables if given. */
export function runCommand(
  cwd: string,
  command: string,
  args: string[],
  options: { timeout?: number; env?: NodeJS.ProcessEnv } = {},
): CommandResult {
  const result = spawnSync(command, args, {
    cwd,
    encoding: 'utf8',
    timeout: options.timeout ?? minutes(10),
    env: { ...process.env, CI: 'true', NO_COLOR: '1', ...options.env },
  });
  return { status: result.status, output: `${result.stdout ?? ''}${result.stderr ?? ''}` };
}

/** The command's output; throws with the end of it when the command failed, naming `what` when given. */
export function expectSuccess(result: CommandResult, what = 'command'): string {
  if (result.status !== 0) throw new Error(`${what}: exit ${result.status}\n${result.output.slice(-8000)}`);
  return result.output;
}

/**
 * runCommand without blocking the event loop, for a command that talks to a server the test itself runs (a stand-in
 * registry): spawnSync would hold the loop that server answers on.
 */
export function runCommandAsync(
  cwd: string,
  command: string,
  args: string[],
  options: { timeout?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      timeout: options.timeout ?? minutes(10),
      env: { ...process.env, CI: 'true', NO_COLOR: '1', ...options.env },
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, output }));
  });
}
