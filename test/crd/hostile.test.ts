/**
 * `scaffold manifests` and `scaffold generate` in a project a hostile repository could be: links that leave it, bytes
 * that are not UTF-8, type forms it cannot describe. Each is refused in one message, with exit code 1, and nothing
 * outside the project changes. Needs `npm run build` (npm test does it first).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../support/files.js';

const repo = join(import.meta.dirname, '../..');
const bin = join(repo, 'bin/scaffold.js');
const built = existsSync(join(repo, 'dist/cli/manifests.js'));

let dir: { path: string; remove: () => void };
let root: string;
let outside: string;
beforeEach(() => {
  dir = tempDir('ks-hostile-');
  root = join(realpathSync(dir.path), 'project');
  outside = join(realpathSync(dir.path), 'outside');
  mkdirSync(outside);
  cpSync(join(repo, 'test/fixtures/markers/scaffold'), root, {
    recursive: true,
    filter: (src) => !/\/(expected|twin)(\/|$)/.test(src),
  });
});
afterEach(() => dir.remove());

const scaffold = (...args: string[]) => spawnSync(process.execPath, [bin, ...args], { cwd: root, encoding: 'utf8' });

/** A user's file outside the project, and a link to it at `link` in the project. */
function linkOut(link: string): string {
  const target = join(outside, 'precious.txt');
  writeFileSync(target, 'keep me\n');
  mkdirSync(join(root, link, '..'), { recursive: true });
  rmSync(join(root, link), { force: true });
  symlinkSync(target, join(root, link));
  return target;
}

function expectRefused(r: ReturnType<typeof scaffold>, message: RegExp): void {
  expect(r.status).toBe(1);
  expect(r.stderr).toMatch(message);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

describe.skipIf(!built)('a hostile project', () => {
  it('manifests: refuses a CRD linked out of the project, writes nothing, and leaves the file alone', () => {
    const target = linkOut('config/crd/bases/crew.example.com_captains.yaml');
    const r = scaffold('manifests');
    expectRefused(
      r,
      /config\/crd\/bases\/crew\.example\.com_captains\.yaml is a symbolic link to .*outside\/precious\.txt, outside the project; scaffold does not write through links/,
    );
    expect(readFileSync(target, 'utf8')).toBe('keep me\n');
    expect(existsSync(join(root, 'config/rbac/role.yaml'))).toBe(false);
  });

  it('generate: refuses zz_generated.resources.ts linked out of the project', () => {
    const target = linkOut('api/v1/zz_generated.resources.ts');
    expectRefused(
      scaffold('generate'),
      /api\/v1\/zz_generated\.resources\.ts is a symbolic link to .*precious\.txt, outside the project/,
    );
    expect(readFileSync(target, 'utf8')).toBe('keep me\n');
  });

  it('manifests: refuses a folder of the output linked out of the project', () => {
    mkdirSync(join(root, 'config'), { recursive: true });
    symlinkSync(outside, join(root, 'config', 'rbac'));
    expectRefused(scaffold('manifests'), /config\/rbac is a symbolic link to .*outside, outside the project/);
    expect(existsSync(join(outside, 'role.yaml'))).toBe(false);
  });

  it('follows a link that stays in the project', () => {
    mkdirSync(join(root, 'generated', 'crds'), { recursive: true });
    mkdirSync(join(root, 'config', 'crd'), { recursive: true });
    symlinkSync('../../generated/crds', join(root, 'config', 'crd', 'bases'));
    const r = scaffold('manifests');
    expect(r.stderr).toBe('');
    expect(existsSync(join(root, 'generated/crds/crew.example.com_captains.yaml'))).toBe(true);
  });

  it('refuses a types file linked from outside the project instead of reading it into a CRD', () => {
    const target = join(outside, 'captain_types.ts');
    cpSync(join(root, 'api/v1/captain_types.ts'), target);
    rmSync(join(root, 'api/v1/captain_types.ts'));
    symlinkSync(target, join(root, 'api/v1/captain_types.ts'));
    expectRefused(
      scaffold('manifests'),
      /api\/v1\/captain_types\.ts is a symbolic link to .*outside\/captain_types\.ts, outside the project; scaffold does not read sources through links/,
    );
    expect(existsSync(join(root, 'config/crd/bases'))).toBe(false);
  });

  it('refuses a types file that is not UTF-8 at file:line, as controller-gen does', () => {
    const file = join(root, 'api/v1/captain_types.ts');
    const text = readFileSync(file, 'utf8').replace(
      '// +optional\n  foo?: string;',
      '// +kubebuilder:validation:Enum=x\xffy\n  foo?: string;',
    );
    const bytes = Buffer.from(text, 'latin1');
    writeFileSync(file, bytes);
    const line = text.slice(0, text.indexOf('\xff')).split('\n').length;
    expectRefused(scaffold('manifests'), new RegExp(`api/v1/captain_types\\.ts:${line}: invalid UTF-8 encoding`));
  });

  it('refuses a PROJECT that is not UTF-8', () => {
    writeFileSync(
      join(root, 'PROJECT'),
      Buffer.concat([readFileSync(join(root, 'PROJECT')), Buffer.from('owner: \xe9\n', 'latin1')]),
    );
    expectRefused(scaffold('manifests'), /PROJECT:\d+: invalid UTF-8 encoding/);
  });

  it('words an import type as TypeScript does, with file:line', () => {
    const file = join(root, 'api/v1/captain_types.ts');
    writeFileSync(join(root, 'api/v1/ship.ts'), 'export interface Ship {\n  name?: string;\n}\n');
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace('foo?: string;', 'foo?: string;\n  ship?: import("./ship.js").Ship;'),
    );
    const r = scaffold('manifests');
    expectRefused(
      r,
      /api\/v1\/captain_types\.ts:\d+:\d+: import\("\.\/ship\.js"\)\.Ship types are not supported; import the type by name \(import type \{ Ship \} from '\.\/ship\.js'\)/,
    );
    expect(r.stderr).not.toMatch(/LastTypeNode/);
  });
});
