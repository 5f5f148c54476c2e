/**
 * `scaffold envtest use` on a terminal (util-linux `script` gives it one), when the index cannot be read and Go is
 * there: it asks before building, and Ctrl-C at the question is an answer: one line, exit code 130, nothing cached.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_KUBERNETES_VERSION } from '../../src/envtest/versions.js';
import { eventually } from '../support/eventually.js';

const scaffoldBin = fileURLToPath(new URL('../../bin/scaffold.js', import.meta.url));
const hasScript = spawnSync('script', ['--version']).status === 0;

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'envtest-question-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe('the question before a build from source', () => {
  it.skipIf(!hasScript)('takes Ctrl-C as an answer: one line, exit code 130, no stack, nothing cached', async () => {
    // A `go` that must never run (the question comes first), and a proxy that refuses, so the default index fails.
    const bin = join(scratch, 'bin');
    await mkdir(bin);
    await writeFile(join(bin, 'go'), '#!/bin/sh\necho "go must not run" >&2\nexit 3\n', { mode: 0o755 });
    const cache = join(scratch, 'cache');
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(scaffoldBin)} envtest use --bin-dir ${JSON.stringify(cache)}`;
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      env: {
        PATH: `${bin}:${dirname(process.execPath)}:/usr/bin:/bin`,
        HOME: scratch,
        HTTPS_PROXY: 'http://127.0.0.1:9',
        TERM: 'dumb',
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let shown = '';
    child.stdout.on('data', (b: Buffer) => (shown += b.toString('utf8')));
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    try {
      await eventually(() => shown.includes('[Y/n]'), { what: 'the question', diagnose: () => shown });
      child.stdin.write('\x03');
      expect(await exited).toBe(130);
    } finally {
      child.kill('SIGKILL');
    }
    const plain = stripVTControlCharacters(shown);
    const after = plain.slice(plain.indexOf('[Y/n]'));
    expect(
      after
        .split(/\r?\n/)
        .map((l) => l.trim())
        .filter(Boolean),
    ).toEqual([
      '[Y/n]',
      `Error: Not building Kubernetes ${DEFAULT_KUBERNETES_VERSION} from source: interrupted at the question (Ctrl-C).`,
    ]);
    expect(shown).not.toContain('This is a bug');
    expect(existsSync(cache) ? readdirSync(cache) : []).toEqual([]);
  });
});
