/**
 * Golden tests: each folder under test/fixtures/markers is a small project. `expected/` holds every file
 * `scaffold manifests` and `scaffold generate` should produce (paths relative to the project); `expected-error.txt`
 * holds the exact error for projects that must be rejected. UPDATE_GOLDEN=1 rewrites the expectations.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { planManifests } from '../../src/generate/manifests.js';
import { planResources } from '../../src/generate/resources.js';
import type { GeneratedFile } from '../../src/generate/write.js';
import { listFiles } from '../support/files.js';

const fixtures = join(import.meta.dirname, '../fixtures/markers');
const update = process.env.UPDATE_GOLDEN === '1';

interface FixtureOptions {
  paths?: string[];
  maxDescLen?: number;
  allowDangerousTypes?: boolean;
  rbacDir?: string;
  rbacFileName?: string;
}

function plan(root: string): GeneratedFile[] {
  const optsFile = join(root, 'options.json');
  const o: FixtureOptions = existsSync(optsFile) ? (JSON.parse(readFileSync(optsFile, 'utf8')) as FixtureOptions) : {};
  const manifests = planManifests({ root, generatorVersion: '(devel)', ...o });
  return [...manifests.files, ...planResources({ root, paths: o.paths, year: 2026 })];
}

const cases = readdirSync(fixtures).filter((d) => statSync(join(fixtures, d)).isDirectory() && !d.startsWith('_'));

describe('golden projects', () => {
  it.each(cases)('%s', (name) => {
    const root = join(fixtures, name);
    const errorFile = join(root, 'expected-error.txt');
    if (existsSync(errorFile)) {
      let message = '';
      try {
        plan(root);
      } catch (err) {
        message = (err as Error).message;
      }
      if (update) writeFileSync(errorFile, `${message}\n`);
      expect(message).not.toBe('');
      expect(`${message}\n`).toBe(readFileSync(errorFile, 'utf8'));
      return;
    }
    const files = plan(root);
    const expectedDir = join(root, 'expected');
    if (update) {
      rmSync(expectedDir, { recursive: true, force: true });
      for (const f of files) {
        const out = join(expectedDir, relative(root, f.path));
        mkdirSync(dirname(out), { recursive: true });
        writeFileSync(out, f.content);
      }
    }
    const got = Object.fromEntries(files.map((f) => [relative(root, f.path), f.content]));
    const want = Object.fromEntries(
      (existsSync(expectedDir) ? listFiles(expectedDir) : []).map((p) => [
        p,
        readFileSync(join(expectedDir, p), 'utf8'),
      ]),
    );
    expect(Object.keys(got).sort()).toEqual(Object.keys(want).sort());
    for (const [path, content] of Object.entries(want)) expect(got[path], path).toBe(content);
  });
});
