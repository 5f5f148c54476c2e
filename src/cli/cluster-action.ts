/** Runs a cluster command: connects on demand, turns build and cluster errors into CliErrors, always disconnects. */
import type { Cluster } from '../cluster/index.js';
import { CliError } from './errors.js';

export interface ClusterCommandContext {
  /** Connects on first use (a command with nothing to apply never needs a cluster). */
  connect: () => Promise<Cluster>;
  /** The project root: the current directory. */
  root: string;
  print: (line: string) => void;
}

export async function runClusterCommand(
  flags: { kubeconfig?: string; context?: string },
  body: (ctx: ClusterCommandContext) => Promise<void>,
): Promise<void> {
  const { connect, ClusterError } = await import('../cluster/index.js');
  const { KustomizeError } = await import('../kustomize/index.js');
  let connection: Promise<Cluster> | undefined;
  try {
    await body({
      connect: () => (connection ??= connect({ kubeconfig: flags.kubeconfig, context: flags.context })),
      root: process.cwd(),
      print: (line) => console.log(line),
    });
  } catch (e) {
    if (e instanceof ClusterError || e instanceof KustomizeError) throw new CliError(e.message);
    throw e;
  } finally {
    if (connection) (await connection.catch(() => undefined))?.close();
  }
}
