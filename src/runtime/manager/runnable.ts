/** Anything the manager starts: it runs until `signal` aborts, then finishes its work and resolves. */
export interface Runnable {
  /** Runs until signal aborts, then finishes its work and resolves. */
  start(signal: AbortSignal): Promise<void>;
  /** Whether it may only run on the elected leader; runnables without this method are treated as true (controller-runtime). */
  needLeaderElection?(): boolean;
}

/** Whether the manager runs r only while it leads: r.needLeaderElection(), or true when it has none. */
export function needsLeaderElection(r: Runnable): boolean {
  return typeof r.needLeaderElection === 'function' ? r.needLeaderElection() : true;
}

/** A runnable from a function, for work that must run on every replica (leader or not) when `leaderElected` is false. */
export function runnableFunc(start: (signal: AbortSignal) => Promise<void>, leaderElected = true): Runnable {
  return { start, needLeaderElection: () => leaderElected };
}
