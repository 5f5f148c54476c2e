import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../support/files.js';

// `scaffold manifests` and `scaffold generate` as a user runs them: the built CLI in a directory.
const bin = fileURLToPath(new URL('../../bin/scaffold.js', import.meta.url));
const fixture = fileURLToPath(new URL('../fixtures/markers/scaffold', import.meta.url));

let dir: { path: string; remove: () => void };
beforeEach(() => {
  if (!existsSync(fileURLToPath(new URL('../../dist/cli/index.js', import.meta.url))))
    throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
  dir = tempDir('kubescaffold-generators-');
});
afterEach(() => dir.remove());

function scaffold(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: dir.path, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe.each(['manifests', 'generate'])('scaffold %s', (command) => {
  it('fails outside a project, saying what to do', () => {
    const r = scaffold(command);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/no PROJECT file in .*; run this command in a project created by `scaffold init`/);
  });

  it("fails in another tool's project, naming its layout", () => {
    writeFileSync(
      join(dir.path, 'PROJECT'),
      'domain: example.com\nlayout:\n- go.kubebuilder.io/v4\nprojectName: goproject\nrepo: example.com/goproject\nversion: "3"\n',
    );
    const r = scaffold(command);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/PROJECT's layout is go.kubebuilder.io\/v4, not kubescaffold's/);
  });

  it('fails on a PROJECT that is not valid YAML', () => {
    writeFileSync(join(dir.path, 'PROJECT'), 'version: "3\nlayout: [\n');
    const r = scaffold(command);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/PROJECT.*not valid YAML/);
  });

  it('prints one line of what it wrote, then that nothing changed', () => {
    for (const d of ['api', 'internal', 'hack', 'PROJECT'])
      cpSync(join(fixture, d), join(dir.path, d), { recursive: true });
    const first = scaffold(command);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(new RegExp(`^${command}: wrote (api|config)/\\S+(, \\S+)*\\n$`));
    const second = scaffold(command);
    expect(second.stdout).toBe(`${command}: up to date, nothing written\n`);
  });
});

describe('scaffold init interrupted during npm install', () => {
  it('says how to finish when Ctrl-C stops npm install, and says it again when init is re-run', async () => {
    // A stand-in npm whose install announces itself and waits to be interrupted; init's `npm pack` of the packages it
    // vendors (it runs from this checkout) goes to the real npm.
    const fakeBin = join(dir.path, 'fake-bin');
    mkdirSync(fakeBin);
    const realNpm = spawnSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).stdout.trim();
    writeFileSync(
      join(fakeBin, 'npm'),
      `#!/bin/sh\nif [ "$1" = install ]; then echo npm-started; exec sleep 60; fi\nexec '${realNpm}' "$@"\n`,
      { mode: 0o755 },
    );
    const project = join(dir.path, 'op');
    mkdirSync(project);
    // Its own process group, as a terminal's foreground job: Ctrl-C signals the whole group.
    const child = spawn(process.execPath, [bin, 'init', '--domain', 'example.com'], {
      cwd: project,
      detached: true,
      env: { ...process.env, PATH: `${fakeBin}:${process.env.PATH ?? ''}` },
    });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await new Promise<void>((resolve) =>
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
        if (stdout.includes('npm-started')) resolve();
      }),
    );
    process.kill(-child.pid!, 'SIGINT');
    expect(await exited).toBe(1);
    expect(stderr).toMatch(
      /npm install was stopped \(SIGINT\); the project files are in place: run `npm install` to finish/,
    );
    const again = spawnSync(process.execPath, [bin, 'init', '--domain', 'example.com'], {
      cwd: project,
      encoding: 'utf8',
    });
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(
      /already initialized: found PROJECT .*if an earlier init stopped during its npm install, run `npm install` here to finish it/,
    );
  });
});
