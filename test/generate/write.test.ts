/** writeChanged writes what is new or different, byte for byte, leaves identical files untouched, and stays in the project. */
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OutsideProjectError } from '../../src/files/confine.js';
import { writeChanged } from '../../src/generate/write.js';
import { tempDir } from '../support/files.js';

let dir: { path: string; remove: () => void };
beforeEach(() => (dir = tempDir('kubescaffold-write-')));
afterEach(() => dir.remove());

describe('writeChanged', () => {
  it('writes new and changed files only, comparing bytes (ASCII or not)', () => {
    const at = (name: string): string => join(dir.path, 'out', name);
    const files = [
      { path: at('ascii.yaml'), content: 'a: 1\n' },
      { path: at('utf8.yaml'), content: 'description: Größe ✓\n' },
      { path: at('same-length.yaml'), content: 'b: 2\n' },
      { path: at('longer.yaml'), content: 'c: 3\n' },
    ];
    expect(writeChanged(dir.path, files)).toEqual(files.map((f) => f.path));
    expect(readFileSync(at('utf8.yaml'), 'utf8')).toBe('description: Größe ✓\n');
    expect(writeChanged(dir.path, files)).toEqual([]);
    writeFileSync(at('same-length.yaml'), 'b: 3\n');
    writeFileSync(at('longer.yaml'), 'c: 3\n\n');
    writeFileSync(at('utf8.yaml'), 'description: Grösse ✓\n');
    expect(writeChanged(dir.path, files)).toEqual([at('utf8.yaml'), at('same-length.yaml'), at('longer.yaml')]);
    for (const f of files) expect(readFileSync(f.path, 'utf8')).toBe(f.content);
  });
});

describe('writeChanged in a project with links', () => {
  it('writes nothing when one path leads out of the project through a link, and names it', () => {
    const project = join(dir.path, 'project');
    const outside = join(dir.path, 'outside.yaml');
    mkdirSync(join(project, 'config'), { recursive: true });
    writeFileSync(outside, 'keep\n');
    symlinkSync(outside, join(project, 'config', 'b.yaml'));
    const files = [
      { path: join(project, 'config', 'a.yaml'), content: 'a: 1\n' },
      { path: join(project, 'config', 'b.yaml'), content: 'b: 1\n' },
    ];
    expect(() => writeChanged(project, files)).toThrow(OutsideProjectError);
    expect(() => writeChanged(project, files)).toThrow(
      /config\/b\.yaml is a symbolic link to .*outside\.yaml, outside the project/,
    );
    expect(existsSync(join(project, 'config', 'a.yaml'))).toBe(false);
    expect(readFileSync(outside, 'utf8')).toBe('keep\n');
  });

  it('writes through a link that stays in the project, to its target', () => {
    const project = join(dir.path, 'project');
    mkdirSync(join(project, 'real'), { recursive: true });
    symlinkSync('real', join(project, 'config'));
    expect(writeChanged(project, [{ path: join(project, 'config', 'a.yaml'), content: 'a: 1\n' }])).toEqual([
      join(project, 'config', 'a.yaml'),
    ]);
    expect(readFileSync(join(project, 'real', 'a.yaml'), 'utf8')).toBe('a: 1\n');
  });
});
