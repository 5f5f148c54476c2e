/** Plan, which every scaffolding command writes through, and symbolic links: in the project followed, out refused. */
import { existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ScaffoldError } from '../../src/errors.js';
import { Plan } from '../../src/scaffold/plan.js';
import { tempDir } from '../support/files.js';

let dir: { path: string; remove: () => void };
let project: string;
let outside: string;
beforeEach(() => {
  dir = tempDir('kubescaffold-plan-links-');
  project = join(dir.path, 'project');
  outside = join(dir.path, 'outside');
  mkdirSync(project);
  mkdirSync(outside);
  writeFileSync(join(outside, 'Makefile'), 'keep\n');
});
afterEach(() => dir.remove());

describe('Plan and symbolic links', () => {
  it('refuses to edit a file linked out of the project, naming the link and its target, and writes nothing', () => {
    symlinkSync(join(outside, 'Makefile'), join(project, 'Makefile'));
    const plan = new Plan(project);
    plan.template('cmd/main.ts', 'main\n', 'overwrite');
    plan.edit('Makefile', (text) => `${text}more\n`);
    expect(() => plan.commit()).toThrow(ScaffoldError);
    expect(() => plan.commit()).toThrow(
      /^Makefile is a symbolic link to .*outside\/Makefile, outside the project; scaffold does not write through links/,
    );
    expect(readFileSync(join(outside, 'Makefile'), 'utf8')).toBe('keep\n');
    expect(existsSync(join(project, 'cmd'))).toBe(false);
  });

  it('refuses a new file below a folder linked out of the project', () => {
    symlinkSync(outside, join(project, 'api'));
    const plan = new Plan(project);
    plan.template('api/v1/captain_types.ts', 'types\n', 'error');
    expect(() => plan.commit()).toThrow(/^api is a symbolic link to .*outside, outside the project/);
    expect(readdirSync(outside)).toEqual(['Makefile']);
  });

  it('follows a link in the project: the target is edited and the link kept', () => {
    mkdirSync(join(project, 'hack'));
    writeFileSync(join(project, 'hack', 'Makefile'), 'all:\n');
    symlinkSync('hack/Makefile', join(project, 'Makefile'));
    const plan = new Plan(project);
    plan.edit('Makefile', (text) => `${text}test:\n`);
    expect(plan.commit()).toEqual(['Makefile']);
    expect(readFileSync(join(project, 'hack', 'Makefile'), 'utf8')).toBe('all:\ntest:\n');
  });

  it('does not follow a link planted under its temporary file name', () => {
    symlinkSync(join(outside, 'Makefile'), join(project, 'PROJECT.scaffold-tmp'));
    const plan = new Plan(project);
    plan.template('PROJECT', 'version: "3"\n', 'overwrite');
    plan.commit();
    expect(readFileSync(join(outside, 'Makefile'), 'utf8')).toBe('keep\n');
    expect(readFileSync(join(project, 'PROJECT'), 'utf8')).toBe('version: "3"\n');
  });

  it('refuses to edit a file that is not UTF-8, at file:line', () => {
    writeFileSync(join(project, 'Makefile'), Buffer.from('all:\n\t@echo \xff\n', 'latin1'));
    const plan = new Plan(project);
    expect(() => plan.edit('Makefile', (text) => text)).toThrow('Makefile:2: invalid UTF-8 encoding');
  });
});
