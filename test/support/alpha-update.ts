/**
 * What test/e2e/alpha-update.test.ts gives both tools' `alpha update`: the user's edits that have the same text in a
 * kubescaffold project and in a kubebuilder one, stand-ins for the GitHub CLI and for make, and the Go project
 * kubebuilder updates.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { expectSuccess, runCommandAsync } from './commands.js';

/** An edit: lines inserted after an anchor of the scaffold, or an anchor replaced. */
export type Edit = { after: string; lines: string[] } | { replace: RegExp; with: string };

/** Applies each file's edits, checking that every anchor is there. */
export function applyEdits(root: string, edits: Record<string, Edit[]>): void {
  for (const [file, list] of Object.entries(edits)) {
    let text = readFileSync(join(root, file), 'utf8');
    for (const edit of list) {
      if ('after' in edit) {
        expect(text, file).toContain(edit.after);
        text = text.replace(edit.after, `${edit.after}${edit.lines.join('\n')}\n`);
      } else {
        expect(text, file).toMatch(edit.replace);
        text = text.replace(edit.replace, edit.with);
      }
    }
    writeFileSync(join(root, file), text);
  }
}

/**
 * The user's edits to the CI workflows, the same in both tools' scaffolds: test.yml runs on a pinned runner, and
 * test-e2e.yml is deleted (a scaffold file the user removed; the update must not bring it back).
 */
export function editWorkflows(root: string): void {
  applyEdits(root, {
    '.github/workflows/test.yml': [{ replace: /runs-on: ubuntu-latest/, with: 'runs-on: ubuntu-24.04' }],
  });
  rmSync(join(root, '.github/workflows/test-e2e.yml'));
}

/**
 * The user's edit to a line both tools' next release changes: the build stage's base image, pulled from a mirror.
 * kubescaffold 0.0.9 -> 0.1.0 and kubebuilder v4.15.0 -> v4.16.0 both turn that line into `FROM ${BASE_IMAGE}`.
 */
export const mirroredBuilderImage: Record<string, Edit[]> = {
  Dockerfile: [{ replace: /^FROM (\S+) AS builder$/m, with: 'FROM mirror.example.com/library/$1 AS builder' }],
};

/** A stand-in for the GitHub CLI on PATH: it records its arguments, one JSON array a line, and answers as gh would. */
export function standInGh(dir: string): { path: string; calls: () => string[][] } {
  const bin = join(dir, 'gh-bin');
  const log = join(dir, 'gh-calls.jsonl');
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
}

/** The `gh issue create` call a run made: its --repo, --title and --body. */
export function issueCreated(calls: string[][]): { repo?: string; title?: string; body?: string } {
  const create = calls.find((args) => args[0] === 'issue' && args[1] === 'create');
  expect(create, 'gh issue create was called').toBeDefined();
  const value = (flag: string): string | undefined => {
    const at = create!.indexOf(flag);
    return at < 0 ? undefined : create![at + 1];
  };
  return { repo: value('--repo'), title: value('--title'), body: value('--body') };
}

/**
 * Stand-ins on PATH for what kubebuilder runs around its scaffolding, so that its runs take seconds and fetch
 * nothing: `make`, which does nothing (kubebuilder runs `make generate` after create api and `make manifests generate
 * fmt vet lint-fix` after each scaffold and on the merge, best effort, which would build controller-gen and
 * golangci-lint), and `go`, which skips `go mod tidy` and `go get` (init's dependency fetching) and runs the real Go
 * for the rest (`go version`, `go mod init`). The trees then hold what kubebuilder scaffolds and merges, without
 * go.sum and the generated deepcopy, CRD and role files; neither tool's update is compared on those.
 */
export function standInsForKubebuilder(dir: string, realGo: string): string {
  const bin = join(dir, 'kubebuilder-bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'make'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
  const go = [
    '#!/bin/sh',
    'case "$1 $2" in',
    '  "mod tidy" | "get "*) exit 0 ;;',
    'esac',
    `exec ${JSON.stringify(realGo)} "$@"`,
  ].join('\n');
  writeFileSync(join(bin, 'go'), `${go}\n`, { mode: 0o755 });
  return bin;
}

/** The user's Go code in the project kubebuilder v4.15.0 scaffolded, the twin of the TypeScript edits. */
export const goUserCode: Record<string, Edit[]> = {
  'api/v1/captain_types.go': [
    {
      after: '\tFoo *string `json:"foo,omitempty"`\n',
      lines: [
        '',
        '\t// ship is the name of the ship this captain commands.',
        '\t// +kubebuilder:validation:MinLength=1',
        '\t// +optional',
        '\tShip *string `json:"ship,omitempty"`',
      ],
    },
  ],
  'internal/controller/captain_controller.go': [
    { after: '\t// TODO(user): your logic here\n', lines: ['\tlogf.FromContext(ctx).Info("captain is on board")'] },
  ],
  'cmd/main.go': [
    {
      after: '\t\tsetupLog.Error(err, "Failed to set up ready check")\n\t\tos.Exit(1)\n\t}\n',
      lines: ["\t// The crew's own start-up note.", '\tsetupLog.Info("fleet operator by the crew")'],
    },
  ],
};

/**
 * Makes the Go twin of the e2e test's project in `root` with kubebuilder `binary` (v4.15.0): go mod init, init, and
 * create api for crew/v1 Captain, committed on main as the user's first commit.
 */
export async function makeGoProject(binary: string, root: string, env: NodeJS.ProcessEnv): Promise<void> {
  mkdirSync(root, { recursive: true });
  const run = async (command: string, ...args: string[]): Promise<void> => {
    expectSuccess(await runCommandAsync(root, command, args, { env }), `${command} ${args.join(' ')}`);
  };
  await run('go', 'mod', 'init', 'example.com/fleet');
  await run(binary, 'init', '--domain', 'example.com', '--repo', 'example.com/fleet', '--project-name', 'fleet');
  await run(
    binary,
    'create',
    'api',
    '--group',
    'crew',
    '--version',
    'v1',
    '--kind',
    'Captain',
    '--resource',
    '--controller',
  );
  await run('git', 'init', '--quiet', '--initial-branch=main');
  await run('git', 'add', '--all');
  await run('git', 'commit', '--quiet', '--message', 'scaffold by kubebuilder v4.15.0');
}
