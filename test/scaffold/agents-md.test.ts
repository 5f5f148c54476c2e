/**
 * The AGENTS.md that init writes (kubebuilder v4.11's guide for coding agents): kubebuilder v4.16.0's sections, and
 * only commands that work in this project: every `npx scaffold` line names a command and flags the CLI has, and every
 * `make` target is in the scaffolded Makefile.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/index.js';
import { initProject, tempProjectDir } from './helpers.js';
import { tempDir } from '../support/files.js';
import { findKubebuilder, runWithGoEnv } from '../support/kubebuilder.js';
import { onPath, peerAvailable, requirePeer } from '../support/peers.js';
import { GO_BUILD_MS } from '../support/limits.js';

const VERSION = 'v4.16.0';

let project: { root: string; cleanup: () => void };
let agents: string;
beforeAll(() => {
  project = tempProjectDir('crew-operator');
  initProject(project.root);
  agents = readFileSync(join(project.root, 'AGENTS.md'), 'utf8');
});
afterAll(() => project?.cleanup());

/** The command lines of the file: fenced lines (with `\` continuations joined) and inline code spans. */
function commandLines(text: string, prefix: string): string[] {
  const fenced = text
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .map((l) => l.replace(/\s+#.*$/, '').trim());
  const inline = [...text.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!.trim());
  return [...new Set([...fenced, ...inline].filter((l) => l.startsWith(prefix)))];
}

/** Why the CLI would not take `line` (`npx scaffold ...`), or undefined. */
function cliProblem(program: Command, line: string): string | undefined {
  const words = line.split(/\s+/).slice(2);
  let command = program;
  while (words.length > 0 && !words[0]!.startsWith('-')) {
    const sub = command.commands.find((c) => c.name() === words[0]);
    if (!sub) break;
    command = sub;
    words.shift();
  }
  if (command === program) return `no command in "${line}"`;
  const known = new Set(command.options.map((o) => o.long));
  const unknown = words
    .filter((w) => w.startsWith('--'))
    .map((w) => w.split('=')[0]!)
    .filter((f) => !known.has(f));
  return unknown.length > 0 ? `"${line}": ${command.name()} has no ${unknown.join(', ')}` : undefined;
}

describe('AGENTS.md', () => {
  it('is written by init, named after the project', () => {
    expect(agents.split('\n')[0]).toBe('# crew-operator - AI Agent Guide');
  });

  it('names only scaffold commands and flags the CLI has', () => {
    const lines = commandLines(agents, 'npx scaffold ');
    expect(lines.length).toBeGreaterThan(8);
    const program = buildProgram();
    expect(lines.map((l) => cliProblem(program, l)).filter((p) => p !== undefined)).toEqual([]);
    expect(agents).not.toMatch(/kubebuilder (create|init|edit)|\.go\b|go\.mod|Ginkgo/);
  });

  it('names only make targets the scaffolded Makefile has', () => {
    const makefile = readFileSync(join(project.root, 'Makefile'), 'utf8');
    const targets = new Set([...makefile.matchAll(/^([\w-]+):/gm)].map((m) => m[1]!));
    const used = commandLines(agents, 'make ').flatMap((l) =>
      l
        .split(/\s+/)
        .slice(1)
        .filter((w) => !w.includes('=') && !w.startsWith('-')),
    );
    expect(used).toEqual(expect.arrayContaining(['manifests', 'generate', 'test', 'deploy']));
    expect(used.filter((t) => !targets.has(t))).toEqual([]);
  });
});

const what = `AGENTS.md against kubebuilder ${VERSION}'s`;
const available = peerAvailable(what, onPath('go') ? undefined : 'Go is not installed (it builds kubebuilder)');

describe.skipIf(!available)(what, () => {
  let theirs: { path: string; remove: () => void };
  let theirRoot: string;

  beforeAll(async () => {
    const kubebuilder = await requirePeer(what, () => findKubebuilder(VERSION));
    theirs = tempDir('ks-kubebuilder-agents-');
    theirRoot = join(theirs.path, 'crew-operator');
    mkdirSync(theirRoot);
    runWithGoEnv(
      kubebuilder,
      [
        'init',
        '--domain=example.com',
        '--repo=example.com/crew-operator',
        '--fetch-deps=false',
        '--skip-go-version-check',
      ],
      theirRoot,
    );
  }, GO_BUILD_MS);
  afterAll(() => theirs?.remove());

  it("has kubebuilder's title and sections", () => {
    // the title and the sections (`#`, `##`), outside code blocks
    const outline = (text: string): string[] =>
      text
        .replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '')
        .split('\n')
        .filter((l) => /^##? /.test(l));
    expect(outline(agents)).toEqual(outline(readFileSync(join(theirRoot, 'AGENTS.md'), 'utf8')));
  });
});
