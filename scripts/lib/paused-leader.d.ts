// Types of paused-leader.js, for the test that imports it.
import type { ChildProcess } from 'node:child_process';
import type { RestClient } from '@kubescaffold/runtime/rest';

/** How one trial went: the old leader's writes after the Lease moved are what fencing must keep at 0. */
export interface PausedLeaderResult {
  /** How long the leader was stopped. */
  pausedMs: number;
  leaderWritesBefore: number;
  followerWritesAfterMove: number;
  /** Writes by the paused leader ordered after the Lease's change of holder. */
  oldLeaderWritesAfterMove: number;
  /** How the old leader exited after SIGCONT; undefined when it did not within the timeout (it was killed). */
  oldLeaderExit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  oldLeaderExitMs: number | undefined;
}

/** Runs one trial in a new namespace; `start(identity)` starts a replica. */
export function pausedLeaderTrial(opts: {
  client: RestClient;
  namespace: string;
  start: (identity: string) => ChildProcess;
  configMaps?: number;
  timeoutMs?: number;
}): Promise<PausedLeaderResult>;
