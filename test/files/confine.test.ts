/** resolveInProject on real symbolic links in temporary folders. */
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isUserError } from '../../src/errors.js';
import { OutsideProjectError, resolveInProject } from '../../src/files/confine.js';
import { tempDir } from '../support/files.js';

let dir: { path: string; remove: () => void };
let project: string;
let outside: string;
beforeEach(() => {
  dir = tempDir('kubescaffold-confine-');
  project = join(realpathSync(dir.path), 'project');
  outside = join(realpathSync(dir.path), 'outside');
  mkdirSync(join(project, 'api', 'v1'), { recursive: true });
  mkdirSync(join(project, 'shared'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(outside, 'secret.yaml'), 'x');
});
afterEach(() => dir.remove());

function refusal(path: string, access: 'read' | 'write' = 'write'): OutsideProjectError {
  try {
    resolveInProject(project, path, access);
  } catch (err) {
    expect(err).toBeInstanceOf(OutsideProjectError);
    expect(isUserError(err)).toBe(true);
    return err as OutsideProjectError;
  }
  throw new Error(`${path} was accepted`);
}

describe('resolveInProject', () => {
  it('returns plain paths, existing or not, in the project', () => {
    expect(resolveInProject(project, 'api/v1/types.ts', 'read')).toBe(join(project, 'api/v1/types.ts'));
    expect(resolveInProject(project, 'config/crd/bases/x.yaml', 'write')).toBe(
      join(project, 'config/crd/bases/x.yaml'),
    );
  });

  it('follows links that stay in the project, to a file and to a folder', () => {
    writeFileSync(join(project, 'shared', 'types.ts'), '');
    symlinkSync('../../shared/types.ts', join(project, 'api', 'v1', 'types.ts'));
    symlinkSync(join(project, 'shared'), join(project, 'config'));
    expect(resolveInProject(project, 'api/v1/types.ts', 'read')).toBe(join(project, 'shared', 'types.ts'));
    expect(resolveInProject(project, 'config/crd/x.yaml', 'write')).toBe(join(project, 'shared', 'crd', 'x.yaml'));
  });

  it('refuses a file linked out of the project, naming the link and its target, and saying what to do', () => {
    symlinkSync(join(outside, 'secret.yaml'), join(project, 'api', 'v1', 'zz_generated.resources.ts'));
    const err = refusal('api/v1/zz_generated.resources.ts');
    expect(err.link).toBe('api/v1/zz_generated.resources.ts');
    expect(err.target).toBe(join(outside, 'secret.yaml'));
    expect(err.message).toBe(
      `api/v1/zz_generated.resources.ts is a symbolic link to ${join(outside, 'secret.yaml')}, outside the project; scaffold does not write through links that leave the project (a cloned repository could aim them at any file of yours); replace the link with a regular file or folder, or remove it, and run the command again`,
    );
    expect(refusal('api/v1/zz_generated.resources.ts', 'read').message).toMatch(
      /does not read sources through links that leave the project; copy the file into the project/,
    );
  });

  it('refuses a folder linked out of the project for a file below it', () => {
    mkdirSync(join(project, 'config', 'crd'), { recursive: true });
    symlinkSync(outside, join(project, 'config', 'crd', 'bases'));
    expect(refusal('config/crd/bases/new.yaml').link).toBe('config/crd/bases');
  });

  it('refuses a dangling link whose target would be created outside', () => {
    symlinkSync(join(outside, 'not-yet.yaml'), join(project, 'role.yaml'));
    expect(refusal('role.yaml').target).toBe(join(outside, 'not-yet.yaml'));
  });

  it('refuses a chain of links that ends outside, naming the link that leaves', () => {
    symlinkSync(join(outside, 'secret.yaml'), join(project, 'shared', 'out.yaml'));
    symlinkSync('shared/out.yaml', join(project, 'a.yaml'));
    expect(refusal('a.yaml').link).toBe('shared/out.yaml');
  });

  it('refuses a path outside the project unless told it is the user’s own choice', () => {
    expect(refusal('../outside/x.yaml').link).toBeUndefined();
    expect(resolveInProject(project, '../outside/x.yaml', 'write', 'allow')).toBe(join(outside, 'x.yaml'));
  });

  it('stops at a loop of links', () => {
    symlinkSync('b', join(project, 'a'));
    symlinkSync('a', join(project, 'b'));
    expect(refusal('a/x').message).toMatch(/too many levels of symbolic links/);
  });
});
