/** Runs a cluster command: connects on demand, always disconnects. Build and cluster errors are UserErrors already. */
import type { Cluster } from '../cluster/index.js';

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
  const { connect } = await import('../cluster/index.js');
  let connection: Promise<Cluster> | undefined;
  try {
    await body({
      connect: () => (connection ??= connect({ kubeconfig: flags.kubeconfig, context: flags.context })),
      root: process.cwd(),
      print: (line) => console.log(line),
    });
  } finally {
    if (connection) (await connection.catch(() => undefined))?.close();
  }
}
