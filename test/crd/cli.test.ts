/** `scaffold manifests` / `scaffold generate` as a user runs them (needs `npm run build`, which `npm test` does first). */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const repo = join(import.meta.dirname, '../..');
const bin = join(repo, 'bin/scaffold.js');
const built = existsSync(join(repo, 'dist/cli/manifests.js'));
let root: string;

const scaffold = (...args: string[]) => spawnSync(process.execPath, [bin, ...args], { cwd: root, encoding: 'utf8' });

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'ks-cli-'));
  cpSync(join(repo, 'test/fixtures/markers/scaffold'), root, {
    recursive: true,
    filter: (src) => !/\/(expected|twin)(\/|$)/.test(src),
  });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe.skipIf(!built)('scaffold manifests and generate on the command line', () => {
  it('writes CRDs, role and descriptors, and honours --crd-dir, --role-name and --max-desc-len', () => {
    const r = scaffold('manifests', '--crd-dir', 'out/crds', '--role-name', 'crew-manager', '--max-desc-len', '0');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(readdirSync(join(root, 'out/crds')).sort()).toEqual([
      'crew.example.com_admirals.yaml',
      'crew.example.com_captains.yaml',
    ]);
    expect(readFileSync(join(root, 'out/crds/crew.example.com_captains.yaml'), 'utf8')).not.toContain('description:');
    expect(readFileSync(join(root, 'config/rbac/role.yaml'), 'utf8')).toContain('name: crew-manager');
    expect(scaffold('generate').status).toBe(0);
    expect(readFileSync(join(root, 'api/v1/zz_generated.resources.ts'), 'utf8')).toContain(
      'export const CaptainResource',
    );
  });

  it("writes the role under --rbac-dir and --rbac-file-name (controller-gen's output:rbac and rbac:fileName)", () => {
    const r = scaffold('manifests', '--rbac-dir', 'config/custom', '--rbac-file-name', 'manager_role.yaml');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(readFileSync(join(root, 'config/custom/manager_role.yaml'), 'utf8')).toContain('name: manager-role');
    expect(existsSync(join(root, 'config/rbac/role.yaml'))).toBe(false);
  });

  it('refuses an --rbac-file-name with a folder in it, writing nothing', () => {
    const r = scaffold('manifests', '--rbac-file-name', '../role.yaml');
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      'Error: --rbac-file-name "../role.yaml" must be a file name, without a folder: give the folder with --rbac-dir\n',
    );
    expect(existsSync(join(root, 'config'))).toBe(false);
  });

  it('exits non-zero with every problem and writes nothing', () => {
    const types = join(root, 'api/v1/captain_types.ts');
    writeFileSync(
      types,
      readFileSync(types, 'utf8').replace(
        'foo?: string;',
        'foo?: number;\n  // +kubebuilder:validation:MinLenght=1\n  bar?: string;',
      ),
    );
    const r = scaffold('manifests', '--paths', './api/...,./internal/controller');
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^Error: 2 problems:\napi\/v1\/captain_types.ts:\d+:\d+: number is a float/);
    expect(r.stderr).toMatch(
      /unknown marker \+kubebuilder:validation:MinLenght; did you mean \+kubebuilder:validation:MinLength\?/,
    );
    expect(existsSync(join(root, 'config/crd'))).toBe(false);
    expect(existsSync(join(root, 'config/rbac'))).toBe(false);
    expect(scaffold('manifests', '--allow-dangerous-types').status).toBe(1);
  });

  it('refuses --paths naming no folder, with the path, non-zero, writing nothing', () => {
    for (const command of ['manifests', 'generate']) {
      const r = scaffold(command, '--paths', './api/...,./nope/...');
      expect([r.status, r.stdout], command).toEqual([1, '']);
      expect(r.stderr).toBe(
        `Error: --paths "./nope/...": no such folder in ${root}. Give folders that hold the API types, relative to where you run this (e.g. ./api/...)\n`,
      );
    }
    expect(existsSync(join(root, 'config'))).toBe(false);
    expect(existsSync(join(root, 'api/v1/zz_generated.resources.ts'))).toBe(false);
  });
});
