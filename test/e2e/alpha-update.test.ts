// `scaffold alpha update` takes a project made by an older release of kubescaffold to this one. The older release is
// test/fixtures/releases/kubescaffold-0.0.9.tgz, kubescaffold as it was before the package split, served by a
// stand-in npm registry on 127.0.0.1: the test makes its project with it (init, create api), adds the user's code to
// the types, the controller, main and the CI workflows, generates as the user would, commits, and updates with this
// checkout's CLI, which installs 0.0.9 again from that registry for the ancestor scaffold (once: later runs find it
// in the release cache).
//
// At the end the same runs are made by the real kubebuilder v4.16.0 on the Go twin of the project (made by v4.15.0,
// with the same edits), and what each tool left in git is compared: branches, commits and their messages, conflict
// markers, what --force, --restore-path, --push and --open-gh-issue do, and the scaffold files the update brings.
// kubebuilder's release downloads come from a stand-in for GitHub (test/support/github-releases.ts), and its make and
// go mod tidy are stand-ins that do nothing (test/support/alpha-update.ts), so that its runs fetch nothing else.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  applyEdits,
  editWorkflows,
  goUserCode,
  issueCreated,
  makeGoProject,
  mirroredBuilderImage,
  standInGh,
  standInsForKubebuilder,
} from '../support/alpha-update.js';
import { expectSuccess, minutes, runCommand, runCommandAsync, type CommandResult } from '../support/commands.js';
import { startReleaseDownloads, type ReleaseDownloads } from '../support/github-releases.js';
import { findKubebuilder, goEnv } from '../support/kubebuilder.js';
import { GO_BUILD_MS } from '../support/limits.js';
import { startRegistry, type StandInRegistry } from '../support/npm-registry.js';
import { onPath, peerAvailable, requirePeer } from '../support/peers.js';
import { changedPaths, observeUpdate, type Observation, type UpdateRun } from '../support/update-observation.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const cli = join(repoRoot, 'bin', 'scaffold.js');
const oldRelease = fileURLToPath(new URL('../fixtures/releases/kubescaffold-0.0.9.tgz', import.meta.url));
const currentVersion = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string })
  .version;
const outputBranch = `kubescaffold-update-from-0.0.9-to-${currentVersion}`;

const identity = {
  GIT_AUTHOR_NAME: 'Crew',
  GIT_AUTHOR_EMAIL: 'crew@example.com',
  GIT_COMMITTER_NAME: 'Crew',
  GIT_COMMITTER_EMAIL: 'crew@example.com',
};

/** Lines the user wrote into the project 0.0.9 scaffolded, by file, each inserted after an anchor of the scaffold. */
const userCode: Record<string, Array<{ after: string; lines: string[] }>> = {
  'api/v1/captain_types.ts': [
    {
      after: '  foo?: string;\n',
      lines: [
        '',
        '  /** ship is the name of the ship this captain commands. */',
        '  // +kubebuilder:validation:MinLength=1',
        '  // +optional',
        '  ship?: string;',
      ],
    },
  ],
  'internal/controller/captain_controller.ts': [
    {
      after: '    // TODO(user): your logic here\n',
      lines: [
        "    const ship = captain.spec.ship ?? 'no ship yet';",
        "    ctx.log.info('captain is on board', { ship });",
      ],
    },
  ],
  'cmd/main.ts': [
    {
      after: "mgr.addReadyzCheck('readyz', ping);\n",
      lines: ["// The crew's own start-up note.", "setupLog.info('fleet operator by the crew');"],
    },
  ],
};

/** The kubebuilder releases the Go twin of the project is made with and updated to. */
const KUBEBUILDER_FROM = 'v4.15.0';
const KUBEBUILDER_TO = 'v4.16.0';
const comparison = `alpha update against kubebuilder ${KUBEBUILDER_TO}'s`;
const goAvailable = peerAvailable(comparison, onPath('go') ? undefined : 'Go is not installed (it builds kubebuilder)');

describe('alpha update from kubescaffold 0.0.9, the release before the package split', () => {
  const base = mkdtempSync(join(tmpdir(), 'kubescaffold-update-'));
  const project = join(base, 'fleet');
  /** $XDG_CACHE_HOME of the update runs, so that their release cache starts empty and is shared by the cases. */
  const cacheHome = join(base, 'cache');
  let registry: StandInRegistry;
  let env: NodeJS.ProcessEnv;
  const ourRun: UpdateRun = { tool: 'kubescaffold', from: '0.0.9', to: currentVersion };
  /** What our runs left, by case, for the comparison with kubebuilder's at the end. */
  const ours = new Map<string, { observed: Observation; output: string; gh?: string[][] }>();
  const git = (cwd: string, ...args: string[]): string =>
    expectSuccess(runCommand(cwd, 'git', args, { env }), `git ${args.join(' ')}`).trim();
  const update = (cwd: string, args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<CommandResult> =>
    runCommandAsync(cwd, process.execPath, [cli, 'alpha', 'update', ...args], {
      env: { ...env, XDG_CACHE_HOME: cacheHome, ...extraEnv },
      timeout: minutes(5),
    });
  /** What a refused update must leave as it was: HEAD, the branches and their commits, the working tree. */
  const repoState = (cwd: string): string =>
    [
      git(cwd, 'rev-parse', 'HEAD'),
      git(cwd, 'symbolic-ref', 'HEAD'),
      git(cwd, 'branch', '-av'),
      git(cwd, 'status', '--porcelain'),
    ].join('\n');
  /** The commit of `cwd`'s history from main to HEAD whose subject starts so. */
  const commitNamed = (cwd: string, subject: string): string =>
    git(cwd, 'log', '--format=%H %s', 'main..HEAD')
      .split('\n')
      .find((line) => line.slice(41).startsWith(subject))!
      .slice(0, 40);

  beforeAll(async () => {
    registry = await startRegistry([oldRelease], join(repoRoot, 'package-lock.json'));
    // npm asks the stand-in for each packument, as a user's npm asks the registry (the suite's other installs take
    // npm's cache first: vitest.config.ts).
    env = {
      ...identity,
      npm_config_registry: registry.url,
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      npm_config_prefer_offline: 'false',
    };
    const install = join(base, 'kubescaffold-0.0.9');
    mkdirSync(install);
    writeFileSync(join(install, 'package.json'), '{"private":true}\n');
    expectSuccess(
      await runCommandAsync(install, 'npm', ['install', '--ignore-scripts', 'kubescaffold@0.0.9'], { env }),
      'npm install kubescaffold@0.0.9',
    );
    const oldCli = join(install, 'node_modules', 'kubescaffold', 'bin', 'scaffold.js');
    mkdirSync(project);
    const scaffold = (...args: string[]): string =>
      expectSuccess(runCommand(project, process.execPath, [oldCli, ...args], { env }), `scaffold ${args.join(' ')}`);
    scaffold('init', '--domain', 'example.com', '--project-name', 'fleet', '--skip-install');
    scaffold('create', 'api', '--group', 'crew', '--version', 'v1', '--kind', 'Captain', '--resource', '--controller');
    git(project, 'init', '--quiet', '--initial-branch=main');
    git(project, 'add', '--all');
    git(project, 'commit', '--quiet', '--message', 'scaffold by kubescaffold 0.0.9');
    applyEdits(project, userCode);
    editWorkflows(project);
    // As the user would after editing the types: the CRD and the role, committed with the code.
    scaffold('generate');
    scaffold('manifests');
    git(project, 'add', '--all');
    git(project, 'commit', '--quiet', '--message', "the crew's code");
    for (const copy of ['dirty', 'history', 'conflict']) cpSync(project, join(base, copy), { recursive: true });
  }, minutes(10));

  afterAll(async () => {
    await registry?.close();
    rmSync(base, { recursive: true, force: true });
  });

  /** A copy of the project's repository as the user committed it, for a run that must not disturb the others. */
  const copyOf = (name: string): string => join(base, name);

  it(
    'refuses, in one line and changing nothing, a directory that is not a git repository',
    async () => {
      const dir = join(base, 'not-git');
      mkdirSync(dir);
      writeFileSync(join(dir, 'PROJECT'), readFileSync(join(project, 'PROJECT')));
      const result = await update(dir, []);
      expect(result.status).not.toBe(0);
      expect(result.output.trim().split('\n')).toEqual([expect.stringMatching(/is not in a git repository.*git init/)]);
      expect(existsSync(join(dir, '.git'))).toBe(false);
    },
    minutes(1),
  );

  it(
    'refuses a working tree with uncommitted changes, naming them, and changes nothing',
    async () => {
      const dirty = copyOf('dirty');
      writeFileSync(join(dirty, 'cmd', 'main.ts'), `${readFileSync(join(dirty, 'cmd', 'main.ts'), 'utf8')}// wip\n`);
      const before = repoState(dirty);
      const result = await update(dirty, []);
      expect(result.status).not.toBe(0);
      expect(result.output.trim().split('\n')).toEqual([
        expect.stringMatching(/uncommitted changes \(cmd\/main\.ts\)/),
      ]);
      expect(repoState(dirty)).toBe(before);
    },
    minutes(1),
  );

  it(
    'refuses a version the registry does not have, naming the registry, and changes nothing',
    async () => {
      const before = repoState(project);
      const result = await update(project, ['--from-version', '0.0.7']);
      expect(result.status).not.toBe(0);
      expect(result.output.trim().split('\n')).toEqual([
        expect.stringContaining(`kubescaffold 0.0.7 is not published on ${registry.url}`),
      ]);
      expect(repoState(project)).toBe(before);
    },
    minutes(2),
  );

  it(
    'refuses a branch without a PROJECT file and changes nothing',
    async () => {
      const bare = join(base, 'no-project');
      mkdirSync(bare);
      git(bare, 'init', '--quiet', '--initial-branch=main');
      writeFileSync(join(bare, 'README.md'), '# not a project\n');
      git(bare, 'add', '--all');
      git(bare, 'commit', '--quiet', '--message', 'readme');
      const before = repoState(bare);
      const result = await update(bare, []);
      expect(result.status).not.toBe(0);
      expect(result.output.trim().split('\n')).toEqual([expect.stringMatching(/branch main has no PROJECT file/)]);
      expect(repoState(bare)).toBe(before);
    },
    minutes(1),
  );

  it(
    "updates to this release on one commit on top of the user's branch, keeping every line the user wrote",
    async () => {
      const result = await update(project, []);
      const output = expectSuccess(result, 'alpha update');
      expect(output).toContain(`on branch ${outputBranch} (one commit on top of main)`);
      // npm fetched 0.0.9 from the registry it is configured with, into the release cache.
      expect(output).toContain('$ npm install kubescaffold@0.0.9 (into ');
      expect(registry.requests).toContain('/kubescaffold');
      expect(git(project, 'symbolic-ref', '--short', 'HEAD')).toBe(outputBranch);
      expect(git(project, 'rev-parse', 'HEAD^')).toBe(git(project, 'rev-parse', 'main'));
      expect(git(project, 'log', '-1', '--format=%s')).toBe(
        `chore(kubescaffold): update scaffold 0.0.9 -> ${currentVersion}`,
      );
      expect(git(project, 'status', '--porcelain')).toBe('');
      expect(git(project, 'branch', '--list', 'tmp-*')).toBe('');
      for (const [file, edits] of Object.entries(userCode)) {
        const text = readFileSync(join(project, file), 'utf8');
        for (const { lines } of edits) for (const line of lines) expect(text, file).toContain(line);
      }
      // The workflow the user changed keeps the change, and the one the user deleted stays deleted.
      expect(readFileSync(join(project, '.github/workflows/test.yml'), 'utf8')).toContain('runs-on: ubuntu-24.04');
      expect(existsSync(join(project, '.github/workflows/test-e2e.yml'))).toBe(false);
      // The new scaffold came through: the runtime package of the split, PROJECT's version.
      expect(readFileSync(join(project, 'internal/controller/captain_controller.ts'), 'utf8')).toContain(
        "from '@kubescaffold/runtime';",
      );
      expect(readFileSync(join(project, 'PROJECT'), 'utf8')).toContain(`cliVersion: ${currentVersion}`);
      const pkg = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as {
        dependencies: Record<string, string>;
      };
      expect(Object.keys(pkg.dependencies)).toContain('@kubescaffold/runtime');
      // scaffold manifests of this release ran on the merge, as kubebuilder runs make manifests: the CRD is this
      // release's, from the user's types.
      const crd = readFileSync(join(project, 'config/crd/bases/crew.example.com_captains.yaml'), 'utf8');
      expect(crd).toContain(`kubescaffold.io/version: ${currentVersion}`);
      expect(crd).toContain('ship:');
    },
    minutes(5),
  );

  it(
    'leaves a project that installs, type-checks, passes its own tests, and has nothing left to generate',
    async () => {
      expectSuccess(await runCommandAsync(project, 'npm', ['install'], { env, timeout: minutes(10) }), 'npm install');
      expectSuccess(runCommand(project, 'npx', ['scaffold', 'generate'], { env }), 'scaffold generate');
      expectSuccess(runCommand(project, 'npx', ['scaffold', 'manifests'], { env }), 'scaffold manifests');
      // npm install wrote the lockfile; the generators found everything as the update left it.
      expect(git(project, 'status', '--porcelain')).toBe('?? package-lock.json');
      expectSuccess(runCommand(project, 'npm', ['run', 'build'], { env }), 'npm run build');
      const tests = expectSuccess(runCommand(project, 'npm', ['test'], { env }), 'npm test');
      expect(tests).toMatch(/Tests\s+\d+ passed/);
    },
    minutes(15),
  );

  it(
    'keeps the history of ancestor, original, upgrade and merge with --show-commits, from --from-branch, for a project with the autoupdate plugin',
    async () => {
      const copy = copyOf('history');
      // The workflow plugin, added with this CLI: PROJECT names a plugin 0.0.9 does not know, which its scaffold of the
      // ancestor must be spared.
      expectSuccess(runCommand(copy, process.execPath, [cli, 'edit', '--plugins=autoupdate/v1-alpha'], { env }));
      git(copy, 'add', '--all');
      git(copy, 'commit', '--quiet', '--message', 'the auto-update workflow');
      // Run from another branch: --from-branch names the one to update.
      git(copy, 'checkout', '--quiet', '-b', 'elsewhere');
      const requests = registry.requests.length;
      const output = expectSuccess(
        await update(copy, ['--show-commits', '--output-branch', 'with-history', '--from-branch', 'main']),
      );
      // 0.0.9 came from the release cache: npm neither installed nor looked it up.
      expect(output).toContain('Using kubescaffold 0.0.9, installed earlier in ');
      expect(registry.requests.length).toBe(requests);
      git(copy, 'merge-base', '--is-ancestor', 'main', 'HEAD');
      expect(output).toContain('on branch with-history (the merge commit');
      expect(git(copy, 'diff', 'main', 'HEAD', '--', '.github/workflows/auto_update.yml')).toBe('');
      expect(git(copy, 'rev-list', '--parents', '-1', 'HEAD').split(' ')).toHaveLength(3);
      expect(git(copy, 'log', '--format=%s', 'main..HEAD').split('\n').sort()).toEqual(
        [
          '(chore) initial scaffold from release version: 0.0.9',
          `(chore) initial scaffold from release version: ${currentVersion}`,
          '(chore) original code from main to keep changes',
          `chore(kubescaffold): update scaffold 0.0.9 -> ${currentVersion}`,
        ].sort(),
      );
      ours.set('history', { observed: observeUpdate(copy, 'main', ourRun), output });
    },
    minutes(5),
  );

  describe('when the user changed lines the new scaffold changes too', () => {
    const controller = 'internal/controller/captain_controller.ts';
    let conflicted: string;

    beforeAll(() => {
      conflicted = copyOf('conflict');
      const path = join(conflicted, controller);
      const text = readFileSync(path, 'utf8');
      expect(text).toContain("} from 'kubescaffold/runtime';\n");
      writeFileSync(path, text.replace("} from 'kubescaffold/runtime';\n", "} from 'kubescaffold/runtime'; // ours\n"));
      applyEdits(conflicted, mirroredBuilderImage);
      git(conflicted, 'commit', '--quiet', '--all', '--message', 'a mirror for the build image');
    });

    it(
      'names the conflicting files, exits non-zero and changes nothing without --force',
      async () => {
        const before = repoState(conflicted);
        const result = await update(conflicted, []);
        expect(result.status).not.toBe(0);
        expect(result.output).toContain(`the merge has conflicts in 2 files: Dockerfile, ${controller}.`);
        expect(result.output).toContain('--force');
        expect(repoState(conflicted)).toBe(before);
        ours.set('refused', { observed: observeUpdate(conflicted, 'main', ourRun), output: result.output });
      },
      minutes(5),
    );

    it(
      'commits the conflict markers with --force and lists the files; --restore-path, --git-config, --push and --open-gh-issue',
      async () => {
        const origin = join(base, 'origin.git');
        git(base, 'init', '--quiet', '--bare', origin);
        git(conflicted, 'remote', 'add', 'origin', origin);
        const gh = standInGh(join(base, 'ours'));
        const output = expectSuccess(
          await update(
            conflicted,
            [
              ...['--force', '--restore-path', '.github/workflows', '--push', '--open-gh-issue'],
              ...['--git-config', 'merge.conflictStyle=diff3'],
            ],
            { PATH: `${gh.path}:${process.env.PATH}` },
          ),
        );
        expect(output).toMatch(new RegExp(`markers .* in 2 file\\(s\\):\\n  Dockerfile\\n  ${controller}\\n`));
        // The generators read the conflicted controller, so they were left for the user to run.
        expect(output).toContain(
          `Not running scaffold generate and scaffold manifests on the merge: ${controller} has conflicts`,
        );
        const text = readFileSync(join(conflicted, controller), 'utf8');
        // diff3, from --git-config, shows the ancestor's lines (labelled with its commit) between ||||||| and =======.
        expect(text).toMatch(
          /<<<<<<< tmp-upgrade-[\d-]+\n[^]*\|{7} [0-9a-f]+\n[^]*=======\n[^]*>>>>>>> tmp-original-[\d-]+\n/,
        );
        expect(text).toContain("} from '@kubescaffold/runtime';");
        expect(text).toContain("} from 'kubescaffold/runtime'; // ours");
        expect(readFileSync(join(conflicted, 'Dockerfile'), 'utf8')).toContain(
          'FROM mirror.example.com/library/node:22-bookworm-slim AS builder',
        );
        expect(git(conflicted, 'log', '-1', '--format=%B')).toContain(
          '(:warning: manual conflict resolution required)',
        );
        // --restore-path: the workflows are the branch's, the deleted one still deleted; the rest is updated.
        expect(git(conflicted, 'diff', 'main', 'HEAD', '--', '.github/workflows')).toBe('');
        expect(git(conflicted, 'diff', '--stat', 'main', 'HEAD', '--', 'package.json')).not.toBe('');
        // --push and --open-gh-issue: the branch is on origin, and the issue names the conflict and links a compare.
        expect(git(conflicted, 'ls-remote', 'origin', outputBranch)).toContain(git(conflicted, 'rev-parse', 'HEAD'));
        const issue = issueCreated(gh.calls());
        expect(issue.repo).toBe('crew/fleet');
        expect(issue.title).toBe(`[Action Required] Upgrade the Scaffold: 0.0.9 -> ${currentVersion}`);
        expect(issue.body).toContain(`- \`${controller}\``);
        expect(issue.body).toContain(`https://github.com/crew/fleet/compare/main...${outputBranch}?expand=1`);
        expect(output).toContain('Opened issue https://github.com/crew/fleet/issues/7');
        ours.set('forced', { observed: observeUpdate(conflicted, 'main', ourRun), output, gh: gh.calls() });
      },
      minutes(5),
    );
  });

  describe.skipIf(!goAvailable)(comparison, () => {
    const goBase = join(base, 'go');
    const goProject = join(goBase, 'fleet');
    const kbRun: UpdateRun = { tool: 'kubebuilder', from: KUBEBUILDER_FROM, to: KUBEBUILDER_TO };
    let downloads: ReleaseDownloads;
    let kbEnv: NodeJS.ProcessEnv;
    let kubebuilderTo: string;
    const goGit = (cwd: string, ...args: string[]): string =>
      expectSuccess(runCommand(cwd, 'git', args, { env: kbEnv }), `git ${args.join(' ')}`).trim();
    /** kubebuilder v4.16.0's alpha update from v4.15.0, with the release downloads and the make and go stand-ins. */
    const kbUpdate = (cwd: string, args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<CommandResult> =>
      runCommandAsync(
        cwd,
        kubebuilderTo,
        ['alpha', 'update', '--from-version', KUBEBUILDER_FROM, '--to-version', KUBEBUILDER_TO, ...args],
        { env: { ...kbEnv, ...extraEnv }, timeout: minutes(10) },
      );
    const ourRecord = (name: string): NonNullable<ReturnType<typeof ours.get>> => {
      const record = ours.get(name);
      expect(record, `our ${name} run, which the tests above make, is recorded`).toBeDefined();
      return record!;
    };

    beforeAll(async () => {
      const kubebuilderFrom = await requirePeer(comparison, () => findKubebuilder(KUBEBUILDER_FROM));
      kubebuilderTo = await requirePeer(comparison, () => findKubebuilder(KUBEBUILDER_TO));
      downloads = await startReleaseDownloads({ [KUBEBUILDER_FROM]: kubebuilderFrom, [KUBEBUILDER_TO]: kubebuilderTo });
      const realGo = onPath('go')!;
      kbEnv = {
        ...goEnv(),
        ...identity,
        ...downloads.env,
        PATH: `${standInsForKubebuilder(goBase, realGo)}:${process.env.PATH}`,
      };
      await makeGoProject(kubebuilderFrom, goProject, kbEnv);
      applyEdits(goProject, goUserCode);
      editWorkflows(goProject);
      goGit(goProject, 'add', '--all');
      goGit(goProject, 'commit', '--quiet', '--message', "the crew's code");
      const history = join(goBase, 'history');
      cpSync(goProject, history, { recursive: true });
      expectSuccess(
        await runCommandAsync(history, kubebuilderFrom, ['edit', '--plugins=autoupdate.kubebuilder.io/v1-alpha'], {
          env: kbEnv,
        }),
      );
      goGit(history, 'add', '--all');
      goGit(history, 'commit', '--quiet', '--message', 'the auto-update workflow');
      goGit(history, 'checkout', '--quiet', '-b', 'elsewhere');
      const conflict = join(goBase, 'conflict');
      cpSync(goProject, conflict, { recursive: true });
      applyEdits(conflict, mirroredBuilderImage);
      goGit(conflict, 'commit', '--quiet', '--all', '--message', 'a mirror for the build image');
      cpSync(conflict, join(goBase, 'refused'), { recursive: true });
    }, GO_BUILD_MS);
    afterAll(async () => {
      await downloads?.close();
    });

    it(
      'keeps the same four commits, messages and parents with --show-commits, on the output branch, from --from-branch',
      async () => {
        const copy = join(goBase, 'history');
        expectSuccess(
          await kbUpdate(copy, ['--show-commits', '--output-branch', 'with-history', '--from-branch', 'main']),
          'kubebuilder alpha update --show-commits',
        );
        // Both fetch the releases they need: npm from its registry, kubebuilder from GitHub's release downloads.
        expect(downloads.requests).toContainEqual(
          expect.stringMatching(new RegExp(`^GET /kubernetes-sigs/kubebuilder/releases/download/${KUBEBUILDER_FROM}/`)),
        );
        const theirs = observeUpdate(copy, 'main', kbRun);
        const mine = ourRecord('history').observed;
        expect(mine.commits).toHaveLength(4);
        expect(mine).toEqual(theirs);
        expect(theirs.head).toBe('with-history');
      },
      minutes(10),
    );

    it(
      "brings the new release's PROJECT, Dockerfile, Makefile targets and config/ tree, and keeps the user's edits",
      () => {
        const [theirCopy, myCopy] = [join(goBase, 'history'), copyOf('history')];
        const runs = [
          {
            cwd: theirCopy,
            from: KUBEBUILDER_FROM,
            to: KUBEBUILDER_TO,
            code: goUserCode,
            header: 'hack/boilerplate.go.txt',
          },
          { cwd: myCopy, from: '0.0.9', to: currentVersion, code: userCode, header: 'hack/boilerplate.txt' },
        ];
        const changedBeyondUpgrade = new Map<string, string[]>();
        for (const { cwd, to, code } of runs) {
          const upgrade = commitNamed(cwd, `(chore) initial scaffold from release version: ${to}`);
          const show = (rev: string, file: string): string => git(cwd, 'show', `${rev}:${file}`);
          // Files both releases changed come as the new release writes them.
          for (const file of ['PROJECT', 'Dockerfile', 'config/default/kustomization.yaml']) {
            expect(show('HEAD', file), `${cwd} ${file}`).toBe(show(upgrade, file));
            expect(show('HEAD', file), `${cwd} ${file}`).not.toBe(show('main', file));
          }
          const targets = (rev: string): string[] =>
            [...show(rev, 'Makefile').matchAll(/^([\w-]+):/gm)].map((m) => m[1]!);
          expect(targets('HEAD'), cwd).toEqual(targets(upgrade));
          expect(show('HEAD', 'Makefile'), cwd).not.toBe(show('main', 'Makefile'));
          changedBeyondUpgrade.set(
            cwd,
            changedPaths(cwd, upgrade, 'HEAD').filter((line) => /\t(?:config\/|PROJECT$|Dockerfile$)/.test(line)),
          );
          // Every line the user wrote is there.
          for (const [file, edits] of Object.entries(code)) {
            const text = show('HEAD', file);
            for (const edit of edits)
              if ('lines' in edit) for (const line of edit.lines) expect(text, file).toContain(line);
          }
          expect(show('HEAD', '.github/workflows/test.yml')).toContain('runs-on: ubuntu-24.04');
        }
        // PROJECT records the new version: kubebuilder's without the v of its release tags, as ours has none.
        const cliVersion = (cwd: string): unknown =>
          (parse(git(cwd, 'show', 'HEAD:PROJECT')) as { cliVersion: unknown }).cliVersion;
        expect(cliVersion(theirCopy)).toBe(KUBEBUILDER_TO.slice(1));
        expect(cliVersion(myCopy)).toBe(currentVersion);
        // The config/ tree is the new release's in both; ours also has the CRD and the role the user generated, which
        // scaffold manifests wrote again on the merge (kubebuilder's make manifests, had it run, would write them too).
        expect(changedBeyondUpgrade.get(theirCopy)).toEqual([]);
        expect(changedBeyondUpgrade.get(myCopy)).toEqual([
          'A\tconfig/crd/bases/crew.example.com_captains.yaml',
          'M\tconfig/rbac/role.yaml',
        ]);
        // By design, where the two differ. kubebuilder's original branch is its ancestor scaffold with the user's
        // files checked out over it, so the workflow the user deleted comes back; ours is the user's branch as it is.
        const exists = (cwd: string, rev: string, file: string): boolean =>
          runCommand(cwd, 'git', ['cat-file', '-e', `${rev}:${file}`], { env }).status === 0;
        const deleted = '.github/workflows/test-e2e.yml';
        expect([exists(theirCopy, 'main', deleted), exists(theirCopy, 'HEAD', deleted)]).toEqual([false, true]);
        expect([exists(myCopy, 'main', deleted), exists(myCopy, 'HEAD', deleted)]).toEqual([false, false]);
        // And kubebuilder empties the tree but for PROJECT before its alpha generate, so its ancestor scaffold has no
        // license header file (alpha generate then passes --license none); ours is scaffolded with the user's header.
        for (const { cwd, from, header } of runs) {
          const ancestor = commitNamed(cwd, `(chore) initial scaffold from release version: ${from}`);
          expect(exists(cwd, 'main', header), cwd).toBe(true);
          expect(exists(cwd, ancestor, header), cwd).toBe(cwd === myCopy);
        }
      },
      minutes(1),
    );

    it(
      'stops on a conflict without --force: kubebuilder leaves the merge to finish on tmp-merge, we change nothing and name the files',
      async () => {
        const copy = join(goBase, 'refused');
        const result = await kbUpdate(copy, []);
        expect(result.status).not.toBe(0);
        const theirs = observeUpdate(copy, 'main', kbRun);
        const mine = ourRecord('refused');
        // kubebuilder: on tmp-merge-<time>, mid-merge, the Dockerfile unmerged with its markers in the working tree.
        expect(theirs).toMatchObject({
          head: 'tmp-merge-<time>',
          merging: true,
          unmerged: ['Dockerfile'],
          unmergedMarkers: { Dockerfile: ['<<<<<<< HEAD', '=======', '>>>>>>> tmp-original-<time>'] },
          tempBranches: ['tmp-merge-<time>'],
        });
        // Ours: where it was, nothing merged, and the files named in the message.
        expect(mine.observed).toMatchObject({ head: 'main', merging: false, unmerged: [], tempBranches: [] });
        expect(mine.output).toContain('Dockerfile');
      },
      minutes(10),
    );

    it(
      'with --force, commits the markers in one commit on the branch, restores the paths, pushes and opens the same issue',
      async () => {
        const copy = join(goBase, 'conflict');
        const origin = join(goBase, 'origin.git');
        goGit(goBase, 'init', '--quiet', '--bare', origin);
        goGit(copy, 'remote', 'add', 'origin', origin);
        const gh = standInGh(join(goBase, 'theirs'));
        expectSuccess(
          await kbUpdate(
            copy,
            [
              ...['--force', '--restore-path', '.github/workflows', '--push', '--open-gh-issue'],
              ...['--git-config', 'merge.conflictStyle=diff3'],
            ],
            { PATH: `${gh.path}:${kbEnv.PATH}` },
          ),
          'kubebuilder alpha update --force',
        );
        const theirs = observeUpdate(copy, 'main', kbRun);
        const mine = ourRecord('forced');
        // One commit on top of main, on <tool>-update-from-<from>-to-<to>, with kubebuilder's conflict subject.
        expect(theirs.head).toBe('<tool>-update-from-<from>-to-<to>');
        expect(goGit(copy, 'symbolic-ref', '--short', 'HEAD')).toBe('kubebuilder-update-from-v4.15.0-to-v4.16.0');
        expect(mine.observed.head).toBe(theirs.head);
        expect(mine.observed.commits).toEqual(theirs.commits);
        expect(theirs.commits).toEqual([
          {
            subject: 'chore(<tool>): (:warning: manual conflict resolution required) update scaffold <from> -> <to>',
            parents: ['a mirror for the build image'],
          },
        ]);
        expect(mine.observed.tempBranches).toEqual(theirs.tempBranches);
        // The markers, diff3 from --git-config, in the Dockerfile of both (and in our controller, whose import line
        // the package split changed); kubebuilder merges in a checkout, so its side is HEAD where ours names the
        // upgrade branch.
        expect(theirs.markers).toEqual({
          Dockerfile: ['<<<<<<< HEAD', '||||||| <commit>', '=======', '>>>>>>> tmp-original-<time>'],
        });
        expect(mine.observed.markers.Dockerfile).toEqual([
          '<<<<<<< tmp-upgrade-<time>',
          ...theirs.markers.Dockerfile!.slice(1),
        ]);
        // --restore-path: test.yml as on main in both; kubebuilder's checkout of the path over the merge leaves the
        // workflow the user deleted, which its merge brought back.
        expect(goGit(copy, 'diff', '--name-status', 'main', 'HEAD', '--', '.github/workflows')).toBe(
          'A\t.github/workflows/test-e2e.yml',
        );
        expect(git(copyOf('conflict'), 'diff', '--name-status', 'main', 'HEAD', '--', '.github/workflows')).toBe('');
        // --push: the branch is on origin.
        expect(goGit(copy, 'ls-remote', 'origin', 'kubebuilder-update-from-v4.15.0-to-v4.16.0')).toContain(
          goGit(copy, 'rev-parse', 'HEAD'),
        );
        // --open-gh-issue: the same title, repository and compare link.
        const [theirIssue, myIssue] = [issueCreated(gh.calls()), issueCreated(mine.gh!)];
        expect(theirIssue.repo).toBe(myIssue.repo);
        expect(theirIssue.title).toBe(
          `[Action Required] Upgrade the Scaffold: ${KUBEBUILDER_FROM} -> ${KUBEBUILDER_TO}`,
        );
        expect(theirIssue.body).toContain(
          'https://github.com/crew/fleet/compare/main...kubebuilder-update-from-v4.15.0-to-v4.16.0?expand=1',
        );
        // kubebuilder asked the network for its releases only.
        expect(downloads.refused).toEqual([]);
      },
      minutes(10),
    );
  });
});
