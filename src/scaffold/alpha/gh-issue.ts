import { spawnSync } from 'node:child_process';
import { ScaffoldError } from '../../errors.js';

/** What an update's issue reports. */
export interface UpdateIssue {
  fromVersion: string;
  toVersion: string;
  fromBranch: string;
  outputBranch: string;
  conflicts: readonly string[];
}

/** The issue's title; a scheduled run that finds an open issue of this title opens no second one. */
export function issueTitle(update: UpdateIssue): string {
  return `[Action Required] Upgrade the Scaffold: ${update.fromVersion} -> ${update.toVersion}`;
}

/** The issue's body: what was done, the compare link to open a pull request, the conflicts file by file, next steps. */
export function issueBody(update: UpdateIssue, repo: string): string {
  const compare = `https://github.com/${repo}/compare/${update.fromBranch}...${update.outputBranch}?expand=1`;
  const lines = [
    '## Description',
    '',
    `Upgrade your project to the scaffold of kubescaffold ${update.toVersion}, from ${update.fromVersion}.`,
    '',
    '## What to do',
    '',
    `A scheduled workflow ran \`scaffold alpha update\` and pushed the branch \`${update.outputBranch}\` with the result.`,
    'Create a pull request from it to review the changes:',
    compare,
    '',
  ];
  if (update.conflicts.length > 0) {
    lines.push(
      ':warning: **Conflicts were committed with their markers** (`<<<<<<<`, `=======`, `>>>>>>>`) in:',
      '',
      ...update.conflicts.map((file) => `- \`${file}\``),
      '',
      '## Next steps',
      '',
      '### 1. Resolve the conflicts',
      `Check out \`${update.outputBranch}\`, resolve them and commit. Or run the update yourself, to resolve them with`,
      'your own tools: `npx scaffold alpha update --output-branch my-fix-branch` stops at the conflicts and names them,',
      'and `--force` commits them on that branch.',
      '',
      '### 2. Verify the changes',
    );
  } else {
    lines.push('## Next steps', '', 'Verify the changes:');
  }
  lines.push(
    '```sh',
    'npm install && npx scaffold generate && npx scaffold manifests',
    'npm run build && npm test',
    '```',
  );
  return `${lines.join('\n')}\n`;
}

/** Runs the GitHub CLI; refuses clearly when it is missing. */
function gh(args: readonly string[], cwd: string): { status: number; stdout: string; stderr: string } {
  const result = spawnSync('gh', args, { cwd, encoding: 'utf8' });
  if (result.error)
    throw new ScaffoldError(
      `--open-gh-issue needs the GitHub CLI, gh, which could not be run (${result.error.message}); install it and sign in (gh auth login)`,
    );
  return { status: result.status ?? 1, stdout: result.stdout, stderr: result.stderr };
}

/** Checks before the update that `gh` can be run, so that a missing one refuses before anything is changed. */
export function checkGhAvailable(cwd: string): void {
  if (gh(['--version'], cwd).status !== 0)
    throw new ScaffoldError('--open-gh-issue needs the GitHub CLI, gh, which did not run; install it (gh auth login)');
}

/**
 * Opens the issue of an update in the repository `gh` sees from `cwd`, unless one of the same title is open already.
 * Returns what it did, for the summary.
 */
export function openUpdateIssue(update: UpdateIssue, cwd: string): string {
  const failed = (what: string, result: { stderr: string }): ScaffoldError =>
    new ScaffoldError(`--open-gh-issue: ${what} failed: ${result.stderr.trim().split('\n').slice(-3).join(' ')}`);
  const view = gh(['repo', 'view', '--json', 'nameWithOwner', '--jq', '.nameWithOwner'], cwd);
  if (view.status !== 0) throw failed('gh repo view', view);
  const repo = view.stdout.trim();
  const title = issueTitle(update);
  // --repo as kubebuilder gives it: the repository `gh repo view` chose, whatever other remotes there are.
  const search = ['--state', 'open', '--search', `in:title "${title}"`, '--json', 'title'];
  const existing = gh(['issue', 'list', '--repo', repo, ...search], cwd);
  if (existing.status === 0 && existing.stdout.includes(JSON.stringify(title).slice(1, -1)))
    return `An open issue "${title}" exists already; no new one was opened.`;
  const created = gh(['issue', 'create', '--repo', repo, '--title', title, '--body', issueBody(update, repo)], cwd);
  if (created.status !== 0) throw failed('gh issue create', created);
  return `Opened issue ${created.stdout.trim()}`;
}
