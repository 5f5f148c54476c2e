import { cpSync, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScaffoldError } from '../../errors.js';
import { parseProject, stringifyProject, type ProjectConfig } from '../../project/project.js';
import { LEGACY_RUNTIME_MODULE, RUNTIME_PACKAGE, runtimeModuleOfPackageJson } from '../../project/runtime-module.js';
import { AUTOUPDATE_PLUGIN_KEY } from '../plugins/autoupdate/spec.js';
import { projectDependencies } from '../dependencies.js';
import { generateFromProject } from './generate.js';
import { checkGhAvailable, openUpdateIssue } from './gh-issue.js';
import { Git, gitFailed } from './git.js';
import {
  CLI_PACKAGE,
  binOf,
  checkReleaseExists,
  generateWithRelease,
  installRelease,
  isInstalled,
  normalizeVersion,
  npmRegistry,
  ownCli,
  releaseDir,
  runCli,
} from './release.js';

/** kubebuilder's git settings for the merge, used unless `--git-config disable` is given. */
export const DEFAULT_GIT_CONFIG: readonly string[] = [
  'merge.renameLimit=999999',
  'diff.renameLimit=999999',
  'merge.conflictStyle=merge',
];

/** What `alpha update` is asked: kubebuilder's flags, the project's directory, and the running CLI's version. */
export interface UpdateOptions {
  /** The project's directory: the top level of its git repository. */
  cwd: string;
  /** The release the project was scaffolded with; PROJECT's cliVersion when undefined. */
  fromVersion?: string;
  /** The release to update to; the running CLI's version when undefined. */
  toVersion?: string;
  /** The branch holding the user's project; the current branch when undefined. */
  fromBranch?: string;
  /** Commit the merge even when it has conflicts, with their markers in the files. */
  force: boolean;
  /** Keep the history (ancestor, original, upgrade, merge) instead of one squashed commit. */
  showCommits: boolean;
  /** Paths taken as they are on the from-branch when squashing (e.g. .github/workflows). */
  restorePaths: readonly string[];
  /** The branch that receives the result; kubescaffold-update-from-<from>-to-<to> when undefined. */
  outputBranch?: string;
  /** The message of the result's commit when the merge is clean; kubebuilder's, with this tool's name, when undefined. */
  mergeMessage?: string;
  /** The message of the result's commit when the merge has conflicts (with --force); kubebuilder's when undefined. */
  conflictMessage?: string;
  /** Push the output branch to origin. */
  push: boolean;
  /** Open a GitHub issue with the result and a compare link, through the GitHub CLI (gh), as kubebuilder does. */
  openGhIssue?: boolean;
  /** `-c key=value` settings for every git command (DEFAULT_GIT_CONFIG plus the user's). */
  gitConfig: readonly string[];
  /** The running CLI's version: an update to it scaffolds in this process instead of installing it. */
  currentVersion: string;
  /**
   * Where the releases npm installs are kept between runs (releaseCacheRoot()): a release is installed once per
   * registry and version, so that running again (with --force after a conflict, say) fetches nothing.
   */
  releaseCache: string;
  /** Told each step. */
  log?: (line: string) => void;
  /** Told what a failed run could not undo (default: stderr). */
  warn?: (line: string) => void;
  now?: () => Date;
}

/** What an update did, for the summary the CLI prints. */
export interface UpdateResult {
  fromVersion: string;
  toVersion: string;
  fromBranch: string;
  /** The branch with the result, checked out; undefined when the project already was at toVersion. */
  outputBranch?: string;
  /** The output branch's commit. */
  commit?: string;
  /** Files the merge left conflict markers in (or a modify/delete conflict), in the repository's order. */
  conflicts: string[];
  squashed: boolean;
  pushed: boolean;
  /** What --open-gh-issue did: the issue opened, or that one was open already. */
  issue?: string;
}

/** The refusal of an update whose merge has conflicts, when --force was not given; nothing was changed. */
export class UpdateConflictError extends ScaffoldError {
  constructor(
    readonly conflicts: readonly string[],
    outputBranch: string,
  ) {
    super(
      `the merge has conflicts in ${conflicts.length} file${conflicts.length === 1 ? '' : 's'}: ${conflicts.join(', ')}.\n` +
        `Nothing was changed. Run again with --force to commit the merge with conflict markers on ${outputBranch}, then resolve them there`,
    );
    this.name = 'UpdateConflictError';
  }
}

/** What the checks before any change settle. */
interface Plan {
  fromVersion: string;
  toVersion: string;
  fromBranch: string;
  fromCommit: string;
  outputBranch: string;
  config: ProjectConfig;
}

/**
 * `scaffold alpha update`: kubebuilder's three-way merge of a project onto a newer scaffold. Four commits are built
 * as kubebuilder builds its temporary branches: ancestor (a clean scaffold from PROJECT by the old release), original
 * (the user's branch), upgrade (a clean scaffold by the new release) and merge (original merged into upgrade, with
 * ancestor as the base). The output branch gets the merge squashed into one commit on top of the user's branch, or
 * the merge commit itself with `showCommits`.
 *
 * Everything is checked before anything is changed, and the commits are made with a temporary index, so the user's
 * working tree, index and branch stay as they were until the result is ready; then the output branch is checked out.
 * A failure on the way deletes the branches made so far and leaves HEAD where it was.
 */
export async function updateProject(options: UpdateOptions): Promise<UpdateResult> {
  const git = new Git(options.cwd, options.gitConfig);
  const log = options.log ?? (() => {});
  const plan = checkInput(git, options);
  const base = { fromVersion: plan.fromVersion, toVersion: plan.toVersion, fromBranch: plan.fromBranch };
  if (plan.fromVersion === plan.toVersion) {
    // Builds from before the package split called themselves by today's version too; such a project is not at it.
    if (plan.toVersion === options.currentVersion) refusePreSplitProject(git, plan, options.fromVersion !== undefined);
    return { ...base, conflicts: [], squashed: false, pushed: false };
  }

  const inProcess = plan.toVersion === options.currentVersion;
  if (options.openGhIssue) checkGhAvailable(options.cwd);
  const registry = npmRegistry(options.cwd);
  const releaseOf = (version: string): Release => ({
    version,
    dir: releaseDir(options.releaseCache, registry, version),
  });
  const from = releaseOf(plan.fromVersion);
  const to = inProcess ? undefined : releaseOf(plan.toVersion);
  // An installed release was published; the registry is asked only about the others.
  for (const release of [from, to]) {
    if (release !== undefined && !isInstalled(release.dir)) checkReleaseExists(release.version, registry, options.cwd);
  }

  const stamp = timestamp((options.now ?? (() => new Date()))());
  const branches = {
    ancestor: `tmp-ancestor-${stamp}`,
    original: `tmp-original-${stamp}`,
    upgrade: `tmp-upgrade-${stamp}`,
    merge: `tmp-merge-${stamp}`,
  };
  const created: string[] = [];
  const makeBranch = (name: string, commit: string): void => {
    if (git.hasBranch(name)) throw new ScaffoldError(`branch ${name} already exists; delete it or try again`);
    git.run(['branch', name, commit]);
    created.push(name);
  };
  const warn = options.warn ?? ((line: string) => process.stderr.write(`${line}\n`));
  const headBefore = currentHead(git);
  const work = mkdtempSync(join(tmpdir(), 'kubescaffold-update-'));
  const commits = new CommitBuilder(git, work);
  try {
    const fromTree = git.run(['rev-parse', `${plan.fromCommit}^{tree}`]);
    const originalDir = join(work, 'original');
    commits.checkoutTree(fromTree, originalDir);

    log(`Preparing ${branches.ancestor}: a clean scaffold by ${CLI_PACKAGE} ${plan.fromVersion}`);
    const ancestorDir = join(work, 'ancestor');
    const ancestorInput = withoutAutoUpdate(plan.config, originalDir, join(work, 'ancestor-input'));
    scaffoldWithRelease(from, registry, ancestorInput, ancestorDir, log);
    refuseAncestorOfOtherLayout(plan, ancestorDir, originalDir, options.fromVersion !== undefined);
    const ancestor = commits.commitDir(
      ancestorDir,
      [plan.fromCommit],
      `(chore) initial scaffold from release version: ${plan.fromVersion}`,
    );
    makeBranch(branches.ancestor, ancestor);

    log(`Preparing ${branches.original}: your project as it is on ${plan.fromBranch}`);
    const original = commits.commitTree(
      fromTree,
      [ancestor],
      `(chore) original code from ${plan.fromBranch} to keep changes`,
    );
    makeBranch(branches.original, original);

    log(`Preparing ${branches.upgrade}: a clean scaffold by ${CLI_PACKAGE} ${plan.toVersion}`);
    const upgradeDir = join(work, 'upgrade');
    if (inProcess) {
      await generateFromProject({
        inputDir: originalDir,
        outputDir: upgradeDir,
        force: false,
        cliVersion: plan.toVersion,
        dependencies: () => projectDependencies(plan.toVersion),
      });
    } else {
      scaffoldWithRelease(to!, registry, originalDir, upgradeDir, log);
    }
    const upgrade = commits.commitDir(
      upgradeDir,
      [ancestor],
      `(chore) initial scaffold from release version: ${plan.toVersion}`,
    );
    makeBranch(branches.upgrade, upgrade);

    log(`Preparing ${branches.merge}: ${branches.original} merged into ${branches.upgrade}`);
    const cli = to === undefined ? ownCli() : binOf(to.dir);
    const merged = regenerateOutputs(commits, mergeTrees(git, branches.upgrade, branches.original), {
      dir: join(work, 'merge'),
      cli,
      version: plan.toVersion,
      log,
      warn,
    });
    if (merged.conflicts.length > 0 && !options.force)
      throw new UpdateConflictError(merged.conflicts, plan.outputBranch);
    const message = mergeMessage(plan, merged.conflicts, options);
    const merge = commits.commitTree(merged.tree, [upgrade, original], message);
    makeBranch(branches.merge, merge);

    let result = merge;
    if (!options.showCommits) {
      log(`Squashing the merge into one commit on ${plan.outputBranch}`);
      const tree = commits.restorePaths(merged.tree, plan.fromCommit, options.restorePaths);
      result = commits.commitTree(tree, [plan.fromCommit], message);
    }
    makeBranch(plan.outputBranch, result);
    if (options.push) {
      log(`Pushing ${plan.outputBranch} to origin`);
      git.run(['push', '-u', 'origin', plan.outputBranch]);
    }
    const issueOf = { ...base, outputBranch: plan.outputBranch, conflicts: merged.conflicts };
    const issue = options.openGhIssue ? openUpdateIssue(issueOf, options.cwd) : undefined;
    git.run(['checkout', '--quiet', plan.outputBranch]);
    for (const name of Object.values(branches)) git.run(['branch', '-D', '--quiet', name]);
    return {
      ...base,
      outputBranch: plan.outputBranch,
      commit: result,
      conflicts: merged.conflicts,
      squashed: !options.showCommits,
      pushed: options.push,
      issue,
    };
  } catch (err) {
    for (const problem of rollBack(git, headBefore, created)) warn(`alpha update: ${problem}`);
    throw err;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** The checks that settle versions, branches and names; each refusal is one line and nothing has changed yet. */
function checkInput(git: Git, options: UpdateOptions): Plan {
  const top = git.try(['rev-parse', '--show-toplevel']);
  if (top.status !== 0)
    throw new ScaffoldError(
      `${options.cwd} is not in a git repository; alpha update merges on git branches: run \`git init\` and commit your project first`,
    );
  if (realpathSync(top.stdout.trim()) !== realpathSync(options.cwd))
    throw new ScaffoldError(
      `run alpha update at the top of the git repository (${top.stdout.trim()}), where the project's PROJECT file is`,
    );
  const dirty = git.run(['status', '--porcelain']);
  if (dirty !== '') {
    const files = dirty.split('\n').map((l) => l.slice(3));
    const shown = files.slice(0, 3).join(', ') + (files.length > 3 ? ', ...' : '');
    throw new ScaffoldError(
      `the working tree has uncommitted changes (${shown}); commit or stash them before alpha update`,
    );
  }
  if (options.showCommits && options.restorePaths.length > 0)
    throw new ScaffoldError('--restore-path applies when squashing, so it cannot be given with --show-commits');

  const fromBranch = options.fromBranch ?? currentBranch(git);
  if (!git.hasBranch(fromBranch))
    throw new ScaffoldError(`--from-branch ${fromBranch} is not a local branch; \`git branch\` lists them`);
  const fromCommit = git.commitOf(`refs/heads/${fromBranch}`)!;

  const projectText = git.try(['show', `${fromCommit}:PROJECT`]);
  if (projectText.status !== 0)
    throw new ScaffoldError(
      `branch ${fromBranch} has no PROJECT file at the top of the repository; alpha update upgrades a project scaffolded by ${CLI_PACKAGE} (scaffold init writes PROJECT)`,
    );
  const config = parseProject(projectText.stdout);
  if (typeof config === 'string') throw new ScaffoldError(`PROJECT on ${fromBranch}: ${config}`);
  const fromGiven = options.fromVersion ?? config.cliVersion;
  if (fromGiven === undefined)
    throw new ScaffoldError(
      'PROJECT has no cliVersion, so the release that scaffolded it is unknown; give it with --from-version',
    );
  const fromVersion = normalizeVersion(fromGiven, options.fromVersion ? '--from-version' : "PROJECT's cliVersion");
  const toVersion = normalizeVersion(options.toVersion ?? options.currentVersion, '--to-version');

  const outputBranch = options.outputBranch ?? `kubescaffold-update-from-${fromVersion}-to-${toVersion}`;
  if (git.try(['check-ref-format', '--branch', outputBranch]).status !== 0)
    throw new ScaffoldError(`--output-branch "${outputBranch}" is not a valid branch name`);
  if (fromVersion !== toVersion && git.hasBranch(outputBranch))
    throw new ScaffoldError(
      `branch ${outputBranch} already exists (from an earlier update?); delete it (git branch -D ${outputBranch}) or name another with --output-branch`,
    );
  if (git.try(['var', 'GIT_COMMITTER_IDENT']).status !== 0)
    throw new ScaffoldError(
      'git does not know who you are, and alpha update makes commits; set git config user.name and user.email',
    );
  return { fromVersion, toVersion, fromBranch, fromCommit, outputBranch, config };
}

function currentBranch(git: Git): string {
  const branch = git.try(['symbolic-ref', '--quiet', '--short', 'HEAD']);
  if (branch.status !== 0)
    throw new ScaffoldError('HEAD is detached; check out the branch to update, or name it with --from-branch');
  return branch.stdout.trim();
}

/** HEAD as `git checkout` takes it back: the branch it is on, or the commit when detached. */
function currentHead(git: Git): string {
  const branch = git.try(['symbolic-ref', '--quiet', '--short', 'HEAD']);
  return branch.status === 0 ? branch.stdout.trim() : git.run(['rev-parse', 'HEAD']);
}

/** A release to scaffold with: its version, and its directory in the release cache. */
interface Release {
  version: string;
  dir: string;
}

function scaffoldWithRelease(
  release: Release,
  registry: string,
  inputDir: string,
  outputDir: string,
  log: (line: string) => void,
): void {
  if (isInstalled(release.dir)) {
    log(`Using ${CLI_PACKAGE} ${release.version}, installed earlier in ${release.dir}`);
  } else {
    log(`$ npm install ${CLI_PACKAGE}@${release.version} (into ${release.dir})`);
    installRelease(release.version, registry, release.dir);
  }
  log(`$ scaffold alpha generate (${CLI_PACKAGE} ${release.version})`);
  generateWithRelease(release.dir, release.version, inputDir, outputDir);
}

/** What a branch's package.json says of the package split: the module its code imports the runtime from, and why. */
function runtimeLayoutOf(packageJson: string | undefined): { module: string; kubescaffold?: string } {
  const module = runtimeModuleOfPackageJson(packageJson);
  let kubescaffold: string | undefined;
  try {
    const pkg = JSON.parse(packageJson ?? '{}') as { dependencies?: Record<string, string> };
    kubescaffold = pkg.dependencies?.[CLI_PACKAGE];
  } catch {
    kubescaffold = undefined;
  }
  return { module, kubescaffold };
}

/** The facts that date a project to before the package split, for the messages below. */
function preSplitEvidence(layout: { kubescaffold?: string }): string {
  const spec = layout.kubescaffold === undefined ? '' : ` (${layout.kubescaffold})`;
  return `its package.json depends on ${CLI_PACKAGE}${spec} and names no @kubescaffold/ package`;
}

const FROM_VERSION_ADVICE =
  `give the release that made it with --from-version (the releases before the split depend on ${CLI_PACKAGE} alone: ` +
  `\`npm view ${CLI_PACKAGE}@<version> dependencies\`), or move the project by hand (docs/guides/upgrading.md, "By hand")`;

/**
 * Refuses a project at the running CLI's version by PROJECT that was scaffolded before the package split: the builds
 * before it called themselves 0.1.0 as today's release does, so its cliVersion names a release that did not make it.
 */
function refusePreSplitProject(git: Git, plan: Plan, given: boolean): void {
  const packageJson = git.try(['show', `${plan.fromCommit}:package.json`]);
  const layout = runtimeLayoutOf(packageJson.status === 0 ? packageJson.stdout : undefined);
  if (layout.module !== LEGACY_RUNTIME_MODULE) return;
  const named = given
    ? `--from-version names ${plan.fromVersion}`
    : `PROJECT on ${plan.fromBranch} records cliVersion ${plan.fromVersion}`;
  throw new ScaffoldError(
    `${named}, but the project was scaffolded before ${CLI_PACKAGE} was split into three packages, by a build that called itself ${plan.fromVersion} too: ` +
      `${preSplitEvidence(layout)}, which ${CLI_PACKAGE} ${plan.fromVersion} does not scaffold. ` +
      `So it is not at ${plan.toVersion}, and its version does not say which release made it: ${FROM_VERSION_ADVICE}`,
  );
}

/**
 * Refuses an ancestor scaffold that imports the runtime from @kubescaffold/runtime for a project scaffolded before the
 * split: that release did not make the project, and a merge on its scaffold would take the wrong base. (The other way
 * round is a project moved by hand after the older release made it, which the merge carries over.)
 */
function refuseAncestorOfOtherLayout(plan: Plan, ancestorDir: string, originalDir: string, given: boolean): void {
  const read = (dir: string): string | undefined =>
    existsSync(join(dir, 'package.json')) ? readFileSync(join(dir, 'package.json'), 'utf8') : undefined;
  const original = runtimeLayoutOf(read(originalDir));
  if (original.module !== LEGACY_RUNTIME_MODULE || runtimeLayoutOf(read(ancestorDir)).module !== RUNTIME_PACKAGE)
    return;
  const named = given ? '--from-version' : "PROJECT's cliVersion";
  throw new ScaffoldError(
    `${CLI_PACKAGE} ${plan.fromVersion}, which ${named} names, scaffolds projects that depend on ${RUNTIME_PACKAGE}, but the project on ${plan.fromBranch} was scaffolded before the package split: ` +
      `${preSplitEvidence(original)}. So ${plan.fromVersion} did not make it, and its scaffold is no base for the merge; nothing was changed. ${FROM_VERSION_ADVICE.replace(/^g/, 'G')}`,
  );
}

/**
 * The input of the old release's scaffold: the user's project, with PROJECT's autoupdate entry left out when it has
 * one. The workflow that runs alpha update is recorded in PROJECT, and a release older than the plugin refuses a
 * PROJECT that names a plugin it does not know. Without it the ancestor has no workflow; the user's and the new one
 * merge as two additions (identical, or a conflict that the workflow's --restore-path .github/workflows settles).
 */
function withoutAutoUpdate(config: ProjectConfig, originalDir: string, dir: string): string {
  if (config.plugins === undefined || !Object.hasOwn(config.plugins, AUTOUPDATE_PLUGIN_KEY)) return originalDir;
  cpSync(originalDir, dir, { recursive: true });
  const plugins = Object.fromEntries(Object.entries(config.plugins).filter(([key]) => key !== AUTOUPDATE_PLUGIN_KEY));
  const stripped: ProjectConfig = { ...config, plugins: Object.keys(plugins).length > 0 ? plugins : undefined };
  writeFileSync(join(dir, 'PROJECT'), stringifyProject(stripped));
  return dir;
}

/** A merge's tree (with conflict markers in it) and the paths left conflicted, in the repository's order. */
interface Merged {
  tree: string;
  conflicts: string[];
}

/** A merge of two branches' trees by git merge-tree: the tree (with conflict markers) and the conflicted paths. */
function mergeTrees(git: Git, ours: string, theirs: string): Merged {
  const args = ['merge-tree', '--write-tree', '--name-only', '-z', '--no-messages', ours, theirs];
  const result = git.try(args);
  if (result.status !== 0 && result.status !== 1) throw gitFailed(args, result);
  const [tree = '', ...paths] = result.stdout.split('\0');
  return { tree: tree.trim(), conflicts: result.status === 1 ? paths.filter((p) => p !== '') : [] };
}

/** Files `scaffold generate` writes (api/<version>/zz_generated.resources.ts), which it reads no input from. */
const GENERATED_SOURCE = /(?:^|\/)zz_generated\.[^/]+\.ts$/;

/**
 * kubebuilder's `make manifests generate` on its merge: `scaffold generate` and `scaffold manifests` of the release
 * updated to run on the merged tree, so that the generated files (zz_generated.resources.ts, config/crd/bases, the
 * role, the webhook configuration) follow the merged types and the new generators, and a conflict in one of them is
 * settled by writing it again. They are skipped when a file they read (PROJECT, a TypeScript source) has conflicts,
 * as kubebuilder skips them on conflicts in api/, and a failure is told rather than fatal, as kubebuilder's make
 * targets are best effort: the merge is then committed as git left it.
 */
function regenerateOutputs(
  commits: CommitBuilder,
  merged: Merged,
  run: { dir: string; cli: string; version: string; log: (line: string) => void; warn: (line: string) => void },
): Merged {
  const inputs = merged.conflicts.filter((p) => p === 'PROJECT' || (/\.[cm]?ts$/.test(p) && !GENERATED_SOURCE.test(p)));
  if (inputs.length > 0) {
    run.log(
      `Not running scaffold generate and scaffold manifests on the merge: ${inputs.join(', ')} ha${inputs.length === 1 ? 's' : 've'} conflicts (run them once resolved)`,
    );
    return merged;
  }
  commits.checkoutTree(merged.tree, run.dir);
  for (const command of ['generate', 'manifests']) {
    run.log(`$ scaffold ${command} (${CLI_PACKAGE} ${run.version}, on the merge)`);
    const result = runCli(run.cli, run.dir, [command]);
    if (result.status !== 0) {
      const said = result.output.trim().split('\n').slice(-3).join(' ');
      run.warn(
        `alpha update: scaffold ${command} failed on the merge, which is committed without it; run it after the update: ${said}`,
      );
    }
  }
  const tree = commits.commitDirOnto(merged.tree, run.dir);
  const changed = new Set(commits.changedPaths(merged.tree, tree));
  return { tree, conflicts: merged.conflicts.filter((p) => !changed.has(p)) };
}

/**
 * The result's commit message: the user's (--merge-message, --conflict-message) as given, else kubebuilder's with this
 * tool's name, which lists the files left with conflict markers below the subject.
 */
export function mergeMessage(
  plan: { fromVersion: string; toVersion: string },
  conflicts: readonly string[],
  custom: { mergeMessage?: string; conflictMessage?: string } = {},
): string {
  const update = `update scaffold ${plan.fromVersion} -> ${plan.toVersion}`;
  if (conflicts.length === 0) return custom.mergeMessage || `chore(${CLI_PACKAGE}): ${update}`;
  if (custom.conflictMessage) return custom.conflictMessage;
  const subject = `chore(${CLI_PACKAGE}): (:warning: manual conflict resolution required) ${update}`;
  return `${subject}\n\nConflicts left marked in:\n${conflicts.map((c) => `- ${c}`).join('\n')}\n`;
}

/** Deletes the branches this run made and takes HEAD back where it was; returns what could not be undone. */
function rollBack(git: Git, headBefore: string, created: readonly string[]): string[] {
  const problems: string[] = [];
  if (currentHead(git) !== headBefore) {
    const back = git.try(['checkout', '--quiet', headBefore]);
    if (back.status !== 0) problems.push(`could not check out ${headBefore} again: ${back.stderr.trim()}`);
  }
  for (const name of [...created].reverse()) {
    const deleted = git.try(['branch', '-D', '--quiet', name]);
    if (deleted.status !== 0) problems.push(`could not delete branch ${name}: ${deleted.stderr.trim()}`);
  }
  return problems;
}

/** kubebuilder's suffix for its temporary branches (day-month-year-hour-minute), with seconds so reruns differ. */
function timestamp(now: Date): string {
  const two = (n: number): string => String(n).padStart(2, '0');
  return [
    now.getDate(),
    now.getMonth() + 1,
    now.getFullYear() % 100,
    now.getHours(),
    now.getMinutes(),
    now.getSeconds(),
  ]
    .map(two)
    .join('-');
}

/**
 * Commits made without the user's index or working tree: each uses its own index file under the run's work
 * directory, and a directory of the run as its work tree.
 */
class CommitBuilder {
  private indexes = 0;
  private readonly gitDir: string;

  constructor(
    private readonly git: Git,
    private readonly work: string,
  ) {
    this.gitDir = git.run(['rev-parse', '--absolute-git-dir']);
  }

  private freshIndex(): NodeJS.ProcessEnv {
    return { GIT_INDEX_FILE: join(this.work, `index-${++this.indexes}`) };
  }

  /** Writes a tree's files into `dir`. */
  checkoutTree(tree: string, dir: string): void {
    const env = this.freshIndex();
    this.git.run(['read-tree', tree], { env });
    this.git.run(['checkout-index', '--all', '--force', `--prefix=${dir}/`], { env });
  }

  /** Commits the files of `dir` (as `git add --all` there would, .gitignore applying) with these parents. */
  commitDir(dir: string, parents: readonly string[], message: string): string {
    const env = { ...this.freshIndex(), GIT_DIR: this.gitDir, GIT_WORK_TREE: dir };
    const inDir = new Git(dir, this.git.config);
    inDir.run(['add', '--all', '.'], { env });
    const tree = inDir.run(['write-tree'], { env });
    return this.commitTree(tree, parents, message);
  }

  /**
   * The tree of `dir`, a checkout of `tree` that commands have changed since: `tree` with what they wrote, added,
   * and removed (git add --all on an index of `tree`, so that a tracked file the .gitignore names stays).
   */
  commitDirOnto(tree: string, dir: string): string {
    const env = { ...this.freshIndex(), GIT_DIR: this.gitDir, GIT_WORK_TREE: dir };
    const inDir = new Git(dir, this.git.config);
    inDir.run(['read-tree', tree], { env });
    inDir.run(['add', '--all', '.'], { env });
    return inDir.run(['write-tree'], { env });
  }

  /** The paths whose content differs between two trees. */
  changedPaths(from: string, to: string): string[] {
    if (from === to) return [];
    return this.git
      .run(['diff-tree', '-r', '-z', '--name-only', '--no-renames', from, to])
      .split('\0')
      .filter((p) => p !== '');
  }

  commitTree(tree: string, parents: readonly string[], message: string): string {
    return this.git.run(['commit-tree', tree, ...parents.flatMap((p) => ['-p', p]), '-m', message]);
  }

  /** The tree with each of `paths` as it is in `from` (removed when `from` has none). */
  restorePaths(tree: string, from: string, paths: readonly string[]): string {
    if (paths.length === 0) return tree;
    const env = this.freshIndex();
    this.git.run(['read-tree', tree], { env });
    for (const path of paths) {
      this.git.run(['rm', '-r', '--cached', '--force', '--quiet', '--ignore-unmatch', '--', path], { env });
      const entries = this.git.run(['ls-tree', '-r', '--full-tree', from, '--', path]);
      if (entries !== '') this.git.run(['update-index', '--index-info'], { env, input: `${entries}\n` });
    }
    return this.git.run(['write-tree'], { env });
  }
}
