import { relative } from 'node:path';
import type { Command } from 'commander';
import type { GenerateResult } from '../scaffold/alpha/generate.js';
import type { UpdateResult } from '../scaffold/alpha/update.js';

interface AlphaGenerateFlags {
  inputDir?: string;
  outputDir?: string;
  force?: boolean;
}

interface AlphaUpdateFlags {
  fromVersion?: string;
  toVersion?: string;
  fromBranch?: string;
  force?: boolean;
  showCommits?: boolean;
  restorePath?: string[];
  outputBranch?: string;
  mergeMessage?: string;
  conflictMessage?: string;
  push?: boolean;
  openGhIssue?: boolean;
  gitConfig?: string[];
}

const UPDATE_DESCRIPTION = [
  'Update the project to a newer scaffold by a three-way git merge, keeping your code (as kubebuilder alpha update).',
  'It builds four temporary branches, deleted at the end: ancestor, a clean scaffold from PROJECT by the release the project was made with (--from-version); original, your project as it is on --from-branch; upgrade, a clean scaffold by the release to update to (--to-version); and merge, original merged into upgrade with ancestor as the base. npm installs each release at its exact version, from your configured registry, once: it is kept in ~/.cache/kubescaffold/releases ($XDG_CACHE_HOME/kubescaffold/releases) for the next run.',
  'The result goes to the output branch, which is then checked out: one commit on top of --from-branch, or with --show-commits the merge commit and its history. When the merge has conflicts, nothing is changed and their files are listed; --force commits them with their conflict markers instead. Your working tree and branch are not touched before the result is ready, and a failure leaves the repository as it was.',
  "A project scaffolded before kubescaffold became three packages (its package.json depends on kubescaffold alone) may record the version of today's release in PROJECT; give the release that made it with --from-version.",
].join('\n\n');

/** `scaffold alpha`: kubebuilder's group of commands that may still change. */
export function registerAlphaCommand(program: Command): void {
  const alpha = program
    .command('alpha')
    .description('Experimental commands, which may change in later versions (as kubebuilder alpha)');
  alpha
    .command('generate')
    .description(
      'Scaffold the project again from its PROJECT file with this version of kubescaffold, to upgrade its scaffold',
    )
    .option('--input-dir <dir>', 'directory of the project whose PROJECT file is read (default: the current directory)')
    .option(
      '--output-dir <dir>',
      'directory for the new scaffold (default: the input directory, whose files are moved to a backup next to it first)',
    )
    .option('--force', 'write into a non-empty --output-dir, after moving its contents to a backup next to it')
    .action(async (flags: AlphaGenerateFlags) => {
      const [{ generateFromProject }, { projectDependencies }, { readPackageVersion }] = await Promise.all([
        import('../scaffold/alpha/generate.js'),
        import('../scaffold/dependencies.js'),
        import('./version.js'),
      ]);
      const result = await generateFromProject({
        inputDir: flags.inputDir ?? process.cwd(),
        outputDir: flags.outputDir,
        force: Boolean(flags.force),
        dependencies: () => projectDependencies(readPackageVersion()),
        cliVersion: readPackageVersion(),
        log: (line) => console.log(line),
      });
      console.log(generatedMessage(result, readPackageVersion()));
    });
  alpha
    .command('update')
    .summary('Update the project to a newer scaffold by a three-way git merge, keeping your code')
    .description(UPDATE_DESCRIPTION)
    .option('--from-version <version>', "release the project was scaffolded with (default: PROJECT's cliVersion)")
    .option('--to-version <version>', "release to update to (default: this CLI's version)")
    .option('--from-branch <branch>', 'branch holding your project (default: the current branch)')
    .option('--force', 'commit the merge even when it has conflicts, with the conflict markers in the files')
    .option('--show-commits', 'keep the history (ancestor, original, upgrade, merge) instead of one squashed commit')
    .option(
      '--restore-path <path>',
      'path kept as it is on --from-branch when squashing, e.g. .github/workflows (repeatable; not with --show-commits)',
      collect,
    )
    .option('--output-branch <branch>', 'branch for the result (default: kubescaffold-update-from-<from>-to-<to>)')
    .option(
      '--merge-message <message>',
      "message of the result's commit when the merge is clean (default: 'chore(kubescaffold): update scaffold <from> -> <to>')",
    )
    .option(
      '--conflict-message <message>',
      "message of the result's commit when the merge has conflicts, with --force (default: 'chore(kubescaffold): (:warning: manual conflict resolution required) update scaffold <from> -> <to>', with the files listed below)",
    )
    .option('--push', "push the output branch to the 'origin' remote")
    .option(
      '--open-gh-issue',
      'open a GitHub issue with the result, its conflicts and a link to open a pull request (needs gh, signed in)',
    )
    .option(
      '--git-config <key=value>',
      'git setting for the run (repeatable), on top of merge.renameLimit=999999, diff.renameLimit=999999 and merge.conflictStyle=merge; `--git-config disable` drops those',
      collect,
    )
    .action(async (flags: AlphaUpdateFlags) => {
      const [{ updateProject, DEFAULT_GIT_CONFIG }, { releaseCacheRoot }, { readPackageVersion }] = await Promise.all([
        import('../scaffold/alpha/update.js'),
        import('../scaffold/alpha/release.js'),
        import('./version.js'),
      ]);
      const gitConfig = flags.gitConfig ?? [];
      const disable = gitConfig.includes('disable');
      const result = await updateProject({
        cwd: process.cwd(),
        fromVersion: flags.fromVersion,
        toVersion: flags.toVersion,
        fromBranch: flags.fromBranch,
        force: Boolean(flags.force),
        showCommits: Boolean(flags.showCommits),
        restorePaths: flags.restorePath ?? [],
        outputBranch: flags.outputBranch,
        mergeMessage: flags.mergeMessage,
        conflictMessage: flags.conflictMessage,
        push: Boolean(flags.push),
        openGhIssue: Boolean(flags.openGhIssue),
        gitConfig: [...(disable ? [] : DEFAULT_GIT_CONFIG), ...gitConfig.filter((c) => c !== 'disable')],
        currentVersion: readPackageVersion(),
        releaseCache: releaseCacheRoot(process.env),
        log: (line) => console.log(line),
      });
      console.log(updatedMessage(result));
    });
}

/** Repeatable string flags. */
function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** What the update did, the conflicts file by file, and what to run next. */
export function updatedMessage(result: UpdateResult): string {
  if (result.outputBranch === undefined)
    return `The project is already at kubescaffold ${result.toVersion}; nothing to do.`;
  const how = result.squashed
    ? `one commit on top of ${result.fromBranch}`
    : `the merge commit, with the ancestor, original and upgrade commits in its history`;
  const lines = [
    `Updated the scaffold from kubescaffold ${result.fromVersion} to ${result.toVersion} on branch ${result.outputBranch} (${how}), now checked out.`,
  ];
  if (result.pushed) lines.push(`Pushed ${result.outputBranch} to origin.`);
  if (result.issue !== undefined) lines.push(result.issue);
  if (result.conflicts.length > 0) {
    lines.push(
      `Conflicts, committed with their markers (<<<<<<< ======= >>>>>>>) in ${result.conflicts.length} file(s):`,
    );
    for (const file of result.conflicts) lines.push(`  ${file}`);
    lines.push('Resolve them and commit, then:');
  } else {
    lines.push('Next:');
  }
  lines.push(
    '  npm install && npx scaffold generate && npx scaffold manifests && npm test',
    `  review the update with: git diff ${result.fromBranch}...${result.outputBranch}`,
  );
  return lines.join('\n');
}

/** What was done, where the user's previous files are, and how to bring their code over to the new scaffold. */
export function generatedMessage(result: GenerateResult, version: string): string {
  const out = relative(process.cwd(), result.outputDir) || '.';
  const lines = [`Scaffolded ${result.outputDir} again from ${result.inputDir}/PROJECT with kubescaffold ${version}.`];
  if (result.backupDir !== undefined) {
    const kept = result.keptInPlace.length > 0 ? ` (${result.keptInPlace.join(' and ')} stayed in place)` : '';
    lines.push(`Your previous files were moved to ${result.backupDir}${kept}.`);
  }
  for (const note of result.notes) lines.push(`Note: ${note}`);
  const git = result.keptInPlace.includes('.git');
  lines.push(
    '',
    'Next: bring your own code over to the new scaffold.',
    git && result.inPlace
      ? `1. See what changed with \`git diff\` (your last commit is your previous code), or: diff -ru ${result.previousDir} ${result.outputDir}`
      : `1. See what changed: diff -ru -x node_modules -x .git ${result.previousDir} ${result.outputDir}`,
    '2. Copy back what you wrote: the fields and markers of your types (api/), your reconcile logic (internal/controller/),',
    "   your webhooks' logic (internal/webhook/), tests, and your edits to cmd/main.ts, config/, Makefile, package.json, README.md.",
    ...(result.keptFiles.length > 0 ? [`   Kept as they were: ${result.keptFiles.join(', ')}.`] : []),
    `3. Then: ${out === '.' ? '' : `cd ${out} && `}npm install && npx scaffold generate && npx scaffold manifests && npm test`,
  );
  return lines.join('\n');
}
