// `scaffold alpha update` takes a project made by an older release of kubescaffold to this one. The older release is
// test/fixtures/releases/kubescaffold-0.0.9.tgz, kubescaffold as it was before the package split, served by a
// stand-in npm registry on 127.0.0.1: the test makes its project with it (init, create api), adds the user's code to
// the types, the controller and main, commits, and updates with this checkout's CLI, which installs 0.0.9 again from
// that registry for the ancestor scaffold.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSuccess, minutes, runCommand, runCommandAsync, type CommandResult } from '../support/commands.js';
import { startRegistry, type StandInRegistry } from '../support/npm-registry.js';

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

describe('alpha update from kubescaffold 0.0.9, the release before the package split', () => {
  const base = mkdtempSync(join(tmpdir(), 'kubescaffold-update-'));
  const project = join(base, 'fleet');
  let registry: StandInRegistry;
  let env: NodeJS.ProcessEnv;
  const git = (cwd: string, ...args: string[]): string =>
    expectSuccess(runCommand(cwd, 'git', args, { env }), `git ${args.join(' ')}`).trim();
  const update = (cwd: string, ...args: string[]): Promise<CommandResult> =>
    runCommandAsync(cwd, process.execPath, [cli, 'alpha', 'update', ...args], { env, timeout: minutes(5) });
  /** A stand-in for the GitHub CLI: it records its arguments, one JSON array a line, and answers as gh would. */
  const standInGh = (): { path: string; calls: () => string[][] } => {
    const bin = join(base, 'bin');
    const log = join(base, 'gh-calls.jsonl');
    mkdirSync(bin, { recursive: true });
    const script = [
      `#!${process.execPath}`,
      "const { appendFileSync } = require('node:fs');",
      'const args = process.argv.slice(2);',
      `appendFileSync(${JSON.stringify(log)}, JSON.stringify(args) + '\\n');`,
      "if (args[0] === 'repo') console.log('crew/fleet');",
      "if (args[0] === 'issue' && args[1] === 'list') console.log('[]');",
      "if (args[0] === 'issue' && args[1] === 'create') console.log('https://github.com/crew/fleet/issues/7');",
    ].join('\n');
    writeFileSync(join(bin, 'gh'), `${script}\n`, { mode: 0o755 });
    const calls = (): string[][] =>
      existsSync(log)
        ? readFileSync(log, 'utf8')
            .trim()
            .split('\n')
            .map((line) => JSON.parse(line) as string[])
        : [];
    return { path: bin, calls };
  };
  /** What a refused update must leave as it was: HEAD, the branches and their commits, the working tree. */
  const repoState = (cwd: string): string =>
    [
      git(cwd, 'rev-parse', 'HEAD'),
      git(cwd, 'symbolic-ref', 'HEAD'),
      git(cwd, 'branch', '-av'),
      git(cwd, 'status', '--porcelain'),
    ].join('\n');

  beforeAll(async () => {
    registry = await startRegistry([oldRelease], join(repoRoot, 'package-lock.json'));
    env = { ...identity, npm_config_registry: registry.url, npm_config_audit: 'false', npm_config_fund: 'false' };
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
    for (const [file, edits] of Object.entries(userCode)) {
      let text = readFileSync(join(project, file), 'utf8');
      for (const { after, lines } of edits) {
        expect(text).toContain(after);
        text = text.replace(after, `${after}${lines.join('\n')}\n`);
      }
      writeFileSync(join(project, file), text);
    }
    git(project, 'commit', '--quiet', '--all', '--message', "the crew's code");
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
      const result = await update(dir);
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
      const result = await update(dirty);
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
      const result = await update(project, '--from-version', '0.0.7');
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
      const result = await update(bare);
      expect(result.status).not.toBe(0);
      expect(result.output.trim().split('\n')).toEqual([expect.stringMatching(/branch main has no PROJECT file/)]);
      expect(repoState(bare)).toBe(before);
    },
    minutes(1),
  );

  it(
    "updates to this release on one commit on top of the user's branch, keeping every line the user wrote",
    async () => {
      const result = await update(project);
      const output = expectSuccess(result, 'alpha update');
      expect(output).toContain(`on branch ${outputBranch} (one commit on top of main)`);
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
      // The new scaffold came through: the runtime package of the split, PROJECT's version.
      expect(readFileSync(join(project, 'internal/controller/captain_controller.ts'), 'utf8')).toContain(
        "from '@kubescaffold/runtime';",
      );
      expect(readFileSync(join(project, 'PROJECT'), 'utf8')).toContain(`cliVersion: ${currentVersion}`);
      const pkg = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as {
        dependencies: Record<string, string>;
      };
      expect(Object.keys(pkg.dependencies)).toContain('@kubescaffold/runtime');
      expect(registry.requests).toContain('/kubescaffold');
    },
    minutes(5),
  );

  it(
    'leaves a project that installs, generates, type-checks and passes its own tests',
    async () => {
      expectSuccess(await runCommandAsync(project, 'npm', ['install'], { env, timeout: minutes(10) }), 'npm install');
      expectSuccess(runCommand(project, 'npx', ['scaffold', 'generate'], { env }), 'scaffold generate');
      expectSuccess(runCommand(project, 'npx', ['scaffold', 'manifests'], { env }), 'scaffold manifests');
      expect(readFileSync(join(project, 'config/crd/bases/crew.example.com_captains.yaml'), 'utf8')).toContain('ship:');
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
      const output = expectSuccess(
        await update(copy, '--show-commits', '--output-branch', 'with-history', '--from-branch', 'main'),
      );
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
    },
    minutes(5),
  );

  describe('when the user changed a line the new scaffold changes too', () => {
    const controller = 'internal/controller/captain_controller.ts';
    let conflicted: string;

    beforeAll(() => {
      conflicted = copyOf('conflict');
      const path = join(conflicted, controller);
      const text = readFileSync(path, 'utf8');
      expect(text).toContain("} from 'kubescaffold/runtime';\n");
      writeFileSync(path, text.replace("} from 'kubescaffold/runtime';\n", "} from 'kubescaffold/runtime'; // ours\n"));
      git(conflicted, 'commit', '--quiet', '--all', '--message', 'a comment on the import');
    });

    it(
      'names the conflicting file, exits non-zero and changes nothing without --force',
      async () => {
        const before = repoState(conflicted);
        const result = await update(conflicted);
        expect(result.status).not.toBe(0);
        expect(result.output).toContain(`the merge has conflicts in 1 file: ${controller}.`);
        expect(result.output).toContain('--force');
        expect(repoState(conflicted)).toBe(before);
      },
      minutes(5),
    );

    it(
      'commits the conflict markers with --force and lists the file; --restore-path, --git-config, --push and --open-gh-issue',
      async () => {
        const origin = join(base, 'origin.git');
        git(base, 'init', '--quiet', '--bare', origin);
        git(conflicted, 'remote', 'add', 'origin', origin);
        const gh = standInGh();
        const output = expectSuccess(
          await runCommandAsync(
            conflicted,
            process.execPath,
            [
              ...[cli, 'alpha', 'update', '--force', '--restore-path', 'Dockerfile', '--push', '--open-gh-issue'],
              ...['--git-config', 'merge.conflictStyle=diff3'],
            ],
            { env: { ...env, PATH: `${gh.path}:${process.env.PATH}` }, timeout: minutes(5) },
          ),
        );
        expect(output).toMatch(new RegExp(`markers .* in 1 file\\(s\\):\\n  ${controller}\\n`));
        const text = readFileSync(join(conflicted, controller), 'utf8');
        // diff3, from --git-config, shows the ancestor's lines (labelled with its commit) between ||||||| and =======.
        expect(text).toMatch(
          /<<<<<<< tmp-upgrade-[\d-]+\n[^]*\|{7} [0-9a-f]+\n[^]*=======\n[^]*>>>>>>> tmp-original-[\d-]+\n/,
        );
        expect(text).toContain("} from '@kubescaffold/runtime';");
        expect(text).toContain("} from 'kubescaffold/runtime'; // ours");
        expect(git(conflicted, 'log', '-1', '--format=%B')).toContain(
          `(:warning: manual conflict resolution required)`,
        );
        expect(git(conflicted, 'diff', 'main', 'HEAD', '--', 'Dockerfile')).toBe('');
        expect(git(conflicted, 'diff', '--stat', 'main', 'HEAD', '--', 'package.json')).not.toBe('');
        // --push and --open-gh-issue: the branch is on origin, and the issue names the conflict and links a compare.
        expect(git(conflicted, 'ls-remote', 'origin', outputBranch)).toContain(git(conflicted, 'rev-parse', 'HEAD'));
        const create = gh.calls().find((args) => args[0] === 'issue' && args[1] === 'create');
        expect(create).toBeDefined();
        const title = create![create!.indexOf('--title') + 1];
        const body = create![create!.indexOf('--body') + 1];
        expect(title).toBe(`[Action Required] Upgrade the Scaffold: 0.0.9 -> ${currentVersion}`);
        expect(body).toContain(`- \`${controller}\``);
        expect(body).toContain(`https://github.com/crew/fleet/compare/main...${outputBranch}?expand=1`);
        expect(output).toContain('Opened issue https://github.com/crew/fleet/issues/7');
      },
      minutes(5),
    );
  });
});
