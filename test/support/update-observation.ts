/**
 * What an `alpha update` run left in a git repository, read the same way for kubescaffold's and kubebuilder's, with
 * each tool's name, versions and times replaced by placeholders so that the two can be compared as data.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Which tool ran and between which versions, as the tool spells them (v4.15.0 for kubebuilder, 0.0.9 for us). */
export interface UpdateRun {
  tool: 'kubescaffold' | 'kubebuilder';
  from: string;
  to: string;
}

/** One commit the update made (from-branch..HEAD): its subject and its parents' subjects, normalized. */
export interface ObservedCommit {
  subject: string;
  parents: string[];
}

/** What the run left: the branch checked out, the commits, the files with conflict markers, the git state. */
export interface Observation {
  /** The branch checked out afterwards, normalized. */
  head: string;
  /** The commits from the from-branch to HEAD, sorted by subject. */
  commits: ObservedCommit[];
  /** Each file of HEAD's tree with conflict markers, and its marker lines in order, normalized. */
  markers: Record<string, string[]>;
  /** Branches named tmp-… that are left, normalized. */
  tempBranches: string[];
  /** Whether a merge is in progress in the working tree (MERGE_HEAD), and the paths it left unmerged. */
  merging: boolean;
  unmerged: string[];
  /** The marker lines of each unmerged file in the working tree, normalized. */
  unmergedMarkers: Record<string, string[]>;
}

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }).replace(/\n$/, '');

/**
 * The placeholders: each tool's name as <tool>, its versions as <from> and <to>, kubebuilder's temporary-branch time
 * (day-month-year-hour-minute; ours has seconds too) as <time>, and a commit id in a marker line as <commit>.
 */
export function normalizer(run: UpdateRun): (text: string) => string {
  return (text) =>
    text
      .replaceAll(run.from, '<from>')
      .replaceAll(run.to, '<to>')
      .replaceAll(run.tool, '<tool>')
      .replace(/\d{2}(?:-\d{2}){4,5}/g, '<time>')
      .replace(/^(\|{7}) [0-9a-f]{7,40}$/gm, '$1 <commit>');
}

/** A line git writes around a conflict: <<<<<<< ours, ||||||| base (diff3), =======, >>>>>>> theirs. */
const MARKER = /^(?:<{7} .*|\|{7}(?: .*)?|={7}|>{7} .*)$/;

/** The conflict-marker lines of each file of `rev`'s tree that has any (git grep -I leaves binary files out). */
function markerLines(cwd: string, rev: string): Record<string, string[]> {
  const files = gitTry(cwd, ['grep', '-I', '-l', '-E', '^(<{7} |[|]{7}|={7}$|>{7} )', rev])
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => l.slice(rev.length + 1));
  const out: Record<string, string[]> = {};
  for (const file of files.sort()) {
    out[file] = git(cwd, 'show', `${rev}:${file}`)
      .split('\n')
      .filter((line) => MARKER.test(line));
  }
  return out;
}

/** git's stdout, or '' when it exits non-zero (git grep does when nothing matches). */
function gitTry(cwd: string, args: string[]): string {
  try {
    return git(cwd, ...args);
  } catch {
    return '';
  }
}

/** Reads what an update left in the repository at `cwd`, whose user branch is `fromBranch`. */
export function observeUpdate(cwd: string, fromBranch: string, run: UpdateRun): Observation {
  const norm = normalizer(run);
  const head = gitTry(cwd, ['symbolic-ref', '--quiet', '--short', 'HEAD']) || 'detached';
  const subjects = new Map(
    git(cwd, 'log', '--format=%H %s', '--all')
      .split('\n')
      .map((line) => [line.slice(0, 40), line.slice(41)] as const),
  );
  const range = `${fromBranch}..HEAD`;
  const commits = gitTry(cwd, ['rev-list', '--parents', range])
    .split('\n')
    .filter((l) => l !== '')
    .map((line) => {
      const [commit, ...parents] = line.split(' ');
      return {
        subject: norm(subjects.get(commit!) ?? commit!),
        parents: parents.map((p) => norm(subjects.get(p) ?? p)),
      };
    })
    .sort((a, b) => a.subject.localeCompare(b.subject));
  const gitDir = git(cwd, 'rev-parse', '--absolute-git-dir');
  const unmerged = [
    ...new Set(
      gitTry(cwd, ['ls-files', '-u'])
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => l.split('\t')[1]!),
    ),
  ].sort();
  const markers = Object.fromEntries(
    Object.entries(markerLines(cwd, 'HEAD')).map(([file, lines]) => [file, lines.map(norm)]),
  );
  return {
    head: norm(head),
    commits,
    markers,
    tempBranches: gitTry(cwd, ['branch', '--list', '--format=%(refname:short)', 'tmp-*'])
      .split('\n')
      .filter((l) => l !== '')
      .map(norm),
    merging: existsSync(join(gitDir, 'MERGE_HEAD')),
    unmerged,
    unmergedMarkers: Object.fromEntries(
      unmerged.map((file) => [
        file,
        readFileSync(join(cwd, file), 'utf8')
          .split('\n')
          .filter((line) => MARKER.test(line))
          .map(norm),
      ]),
    ),
  };
}

/** The paths that differ between two revisions, as `<status>\t<path>` lines (git diff --name-status), sorted. */
export function changedPaths(cwd: string, from: string, to: string): string[] {
  return git(cwd, 'diff', '--no-renames', '--name-status', from, to)
    .split('\n')
    .filter((l) => l !== '')
    .sort();
}
