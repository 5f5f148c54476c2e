import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { initProject, snapshotTree, tempProjectDir } from '../scaffold/helpers.js';

// `scaffold create api --plugins=deploy-image/v1-alpha` as a user runs it: the built CLI in a project.
const bin = fileURLToPath(new URL('../../bin/scaffold.js', import.meta.url));
const api = ['create', 'api', '--group', 'cache', '--version', 'v1alpha1', '--kind', 'Memcached'];

let project: { root: string; cleanup: () => void };
beforeEach(() => {
  if (!existsSync(fileURLToPath(new URL('../../dist/cli/index.js', import.meta.url))))
    throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
  project = tempProjectDir('memcached-operator');
  initProject(project.root);
});
afterEach(() => project.cleanup());

function scaffold(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: project.root, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('scaffold create api --plugins=deploy-image/v1-alpha', () => {
  it('scaffolds the operand API and says where the image comes from', () => {
    const r = scaffold(
      ...api,
      '--plugins=deploy-image/v1-alpha',
      '--image=memcached:1.6.26-alpine',
      '--image-container-port=11211',
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('internal/controller/memcached_controller.ts');
    expect(r.stdout).toContain('The controller deploys memcached:1.6.26-alpine, read from MEMCACHED_IMAGE');
  });

  const refusals: Array<[string, string[], RegExp]> = [
    [
      'without --image',
      ['--plugins=deploy-image/v1-alpha'],
      /^Error: --image is required with --plugins=deploy-image\/v1-alpha/,
    ],
    [
      'with a port that is not a number',
      ['--plugins=deploy-image', '--image=m:1', '--image-container-port=http'],
      /^Error: --image-container-port must be a valid integer, got "http"/,
    ],
    [
      'with its flags but without --plugins',
      ['--image=m:1'],
      /^Error: --image is a flag of the deploy-image\/v1-alpha plugin; add --plugins=deploy-image\/v1-alpha/,
    ],
    [
      'with --controller=false',
      ['--plugins=deploy-image/v1-alpha', '--image=m:1', '--controller=false'],
      /^Error: --plugins=deploy-image\/v1-alpha scaffolds both the API and its controller/,
    ],
  ];
  it.each(refusals)('refuses to run %s, exits 1 and writes nothing', (_name, args, message) => {
    const before = snapshotTree(project.root);
    const r = scaffold(...api, ...args);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(message);
    expect(snapshotTree(project.root)).toEqual(before);
  });
});
