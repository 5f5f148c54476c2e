/** writeChanged writes what is new or different, byte for byte, and leaves identical files untouched. */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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
