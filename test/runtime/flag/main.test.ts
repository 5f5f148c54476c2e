import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleForNode } from '../../../scripts/lib/bundle-for-node.js';
import { tempDir } from '../../support/files.js';

// A real process: what an operator's user sees from the manager's command line, exit status and stderr included.
const fixture = fileURLToPath(new URL('../fixtures/flag-main.ts', import.meta.url));
const dir = tempDir('flag-main-');
const main = join(dir.path, 'flag-main.mjs');

beforeAll(() => bundleForNode(fixture, main));
afterAll(() => dir.remove());

function runMain(...args: string[]) {
  const r = spawnSync(process.execPath, [main, ...args], { encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

// A stack frame as Node prints one: "    at fn (file:line:col)".
const STACK_FRAME = /^\s+at /m;

describe('a main that parses its flags with parseFlagsOrExit, run as a process', () => {
  it('accepts --leader-elect=true, -leader-elect and --metrics-secure=false', () => {
    for (const [args, expected] of [
      [['--leader-elect=true'], { 'leader-elect': true, 'metrics-secure': true }],
      [['-leader-elect'], { 'leader-elect': true, 'metrics-secure': true }],
      [['--metrics-secure=false'], { 'leader-elect': false, 'metrics-secure': false }],
    ] as const) {
      const r = runMain(...args);
      expect(r.status, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(JSON.parse(r.stdout), args.join(' ')).toMatchObject(expected);
      expect(r.stderr).toBe('');
    }
  });

  it('refuses --bogus with exit status 2, the message and the usage on stderr, and no stack trace', () => {
    const r = runMain('--bogus');
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^flag provided but not defined: -bogus\nUsage of manager:\n {2}-leader-elect\n/);
    expect(r.stderr).not.toMatch(STACK_FRAME);
  });

  it('prints the usage for --help and exits 0', () => {
    const r = runMain('--help');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^Usage of manager:\n/);
    expect(r.stdout).toContain('  -webhook-port int\n    \tThe port the webhook server serves on. (default 9443)\n');
  });
});
