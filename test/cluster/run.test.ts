import { EventEmitter } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildProject, ClusterError, runManager } from '../../src/cluster/index.js';
import { runAsDeployed } from '../../src/cluster/deployed/run.js';
import { scaffold } from './helpers.js';
import { eventually } from '../support/eventually.js';

// A stand-in project: its build writes dist/cmd/main.js, a "manager" that records what it saw to out.json and stops
// on a signal, as the runtime's setupSignalHandler makes a real manager do.
const MANAGER = `
import { writeFileSync, readFileSync } from 'node:fs';
const out = new URL('../../out.json', import.meta.url);
const kubeconfig = process.env.KUBECONFIG ?? '';
let context = '';
try { context = /^current-context: (.*)$/m.exec(readFileSync(kubeconfig, 'utf8'))?.[1] ?? 'none'; } catch { context = 'unreadable'; }
const record = (extra) => writeFileSync(out, JSON.stringify({ args: process.argv.slice(2), kubeconfig, context, ...extra }));
if (process.argv.includes('--exit-3')) { record({ state: 'exiting' }); process.exit(3); }
let signals = 0;
for (const s of ['SIGINT', 'SIGTERM']) process.on(s, () => {
  signals++;
  record({ state: 'stopped', signal: s, signals });
  setTimeout(() => process.exit(0), 50);
});
record({ state: 'running' });
setInterval(() => {}, 1000);
`;

const KUBECONFIG = (server: string) => `apiVersion: v1
kind: Config
clusters:
- name: a
  cluster: {server: ${server}}
- name: b
  cluster: {server: ${server}}
contexts:
- name: a
  context: {cluster: a, user: u}
- name: b
  context: {cluster: b, user: u}
current-context: a
users:
- name: u
  user: {token: t}
`;

let root: string;
/** What the builds and managers of a test printed: kept, not printed, so that a passing run shows only its report. */
let printed = '';
const output = (text: string) => void (printed += text);
beforeEach(() => {
  printed = '';
  root = mkdtempSync(join(tmpdir(), 'kubescaffold-run-test-'));
  mkdirSync(join(root, 'node_modules'));
  writeFileSync(join(root, 'manager.mjs'), MANAGER);
  writeFileSync(
    join(root, 'build.mjs'),
    "import { mkdirSync, copyFileSync } from 'node:fs'; mkdirSync('dist/cmd', { recursive: true }); copyFileSync('manager.mjs', 'dist/cmd/main.js');\n",
  );
  writeFileSync(
    join(root, 'package.json'),
    JSON.stringify({ name: 'fixture', type: 'module', scripts: { build: 'node build.mjs' } }),
  );
  writeFileSync(join(root, 'kubeconfig'), KUBECONFIG('https://127.0.0.1:6443'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

function record(): {
  state: string;
  signal?: string;
  signals?: number;
  args: string[];
  kubeconfig: string;
  context: string;
} {
  return JSON.parse(readFileSync(join(root, 'out.json'), 'utf8'));
}

describe('scaffold run', () => {
  it('builds the project, runs dist/cmd/main.js, and stops it cleanly on the first Ctrl-C', async () => {
    const signals = new EventEmitter();
    const running = runManager(root, {
      output,
      kubeconfig: join(root, 'kubeconfig'),
      context: 'b',
      signals,
      args: ['--leader-elect=false'],
    });
    await eventually(() => record().state === 'running', 'the manager to write out.json');
    expect(existsSync(join(root, 'dist/cmd/main.js'))).toBe(true);
    const started = record();
    expect(started).toMatchObject({ state: 'running', context: 'b', args: ['--leader-elect=false'] });
    signals.emit('SIGINT');
    expect(await running).toBe(0);
    expect(record()).toMatchObject({ state: 'stopped', signal: 'SIGINT', signals: 1 });
    // The kubeconfig written for the chosen context is removed once the manager is gone.
    expect(existsSync(started.kubeconfig)).toBe(false);
  });

  it('forwards SIGTERM too, and the manager exit code is the result', async () => {
    const signals = new EventEmitter();
    const running = runManager(root, { output, kubeconfig: join(root, 'kubeconfig'), skipBuild: false, signals });
    await eventually(() => record().state === 'running', 'the manager to write out.json');
    signals.emit('SIGTERM');
    expect(await running).toBe(0);
    expect(record()).toMatchObject({ signal: 'SIGTERM' });
    expect(
      await runManager(root, {
        output,
        kubeconfig: join(root, 'kubeconfig'),
        skipBuild: true,
        signals,
        args: ['--exit-3'],
      }),
    ).toBe(3);
  });

  it('uses the current kubeconfig as it is when no file or context is chosen', async () => {
    const signals = new EventEmitter();
    const previous = process.env.KUBECONFIG;
    process.env.KUBECONFIG = join(root, 'kubeconfig');
    try {
      const running = runManager(root, { output, signals });
      await eventually(() => record().state === 'running', 'the manager to write out.json');
      expect(record().kubeconfig).toBe(join(root, 'kubeconfig'));
      signals.emit('SIGINT');
      expect(await running).toBe(0);
    } finally {
      if (previous === undefined) delete process.env.KUBECONFIG;
      else process.env.KUBECONFIG = previous;
    }
  });

  it('reports a failing build, missing dependencies and a missing entry point clearly', async () => {
    writeFileSync(join(root, 'build.mjs'), "console.error('cmd/main.ts(3,1): error TS1005'); process.exit(2);\n");
    await expect(runManager(root, { output, kubeconfig: join(root, 'kubeconfig') })).rejects.toThrow(
      /npm run build failed \(exit 2\); fix the errors above/,
    );
    expect(printed).toContain('cmd/main.ts(3,1): error TS1005');
    rmSync(join(root, 'node_modules'), { recursive: true });
    await expect(runManager(root, { output, kubeconfig: join(root, 'kubeconfig') })).rejects.toThrow(
      /dependencies are not installed; run `npm install`/,
    );
    await expect(runManager(root, { output, kubeconfig: join(root, 'kubeconfig'), skipBuild: true })).rejects.toThrow(
      ClusterError,
    );
    await expect(runManager(root, { output, kubeconfig: join(root, 'kubeconfig'), skipBuild: true })).rejects.toThrow(
      /dist\/cmd\/main.js does not exist after the build/,
    );
  });

  it('says a missing kubeconfig before building anything, in either mode', async () => {
    const nope = join(root, 'nope');
    const message = `kubeconfig ${nope} does not exist; pass an existing file with --kubeconfig`;
    await expect(runManager(root, { output, kubeconfig: nope })).rejects.toThrow(message);
    await expect(runAsDeployed(root, { output, report: output, kubeconfig: nope })).rejects.toThrow(message);
    expect(existsSync(join(root, 'dist'))).toBe(false);
    expect(printed).toBe('');
  });

  it('runs from the CLI with the manager arguments after --, and fails with the manager exit code', async () => {
    // Built here, where its output is kept: the CLI's own build prints to the terminal, for its user.
    buildProject(root, output);
    await expect(
      scaffold(root, 'run', '--no-build', '--kubeconfig', join(root, 'kubeconfig'), '--', '--exit-3'),
    ).rejects.toThrow('the manager exited with code 3');
    expect(record()).toMatchObject({ args: ['--exit-3'], context: 'a' });
  });
});
