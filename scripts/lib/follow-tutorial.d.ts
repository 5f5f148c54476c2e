import type { CommandStep } from './tutorial.js';

/** A command that needs the reader's cluster, with the directory it is given in. */
export interface ClusterStep extends CommandStep {
  cwd: string;
}

/** What following the tutorial left: the project, the cluster's commands, and each chapter's checks' output. */
export interface Followed {
  project: string;
  clusterSteps: ClusterStep[];
  chapters: Array<{ chapter: string; outputs: Record<string, string> }>;
}

export function commandKind(step: CommandStep): 'cd' | 'mkdir' | 'run' | 'cluster';
export function followTutorial(options: {
  tutorialDir: string;
  base: string;
  scaffoldBin: string;
  env?: Record<string, string>;
  log?: (line: string) => void;
}): Followed;
