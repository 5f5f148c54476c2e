// A project scaffolded before the runtime became its own package keeps working with this CLI. The fixture
// (test/fixtures/legacy-project) is what kubescaffold 0.1.0 wrote before the split (init, create api Captain, generate):
// its package.json depends on kubescaffold alone, through a file: link to a checkout, and its code imports
// 'kubescaffold/runtime' and 'kubescaffold/envtest'. Linked to this checkout instead, it installs, generates, builds
// and passes its own tests (fake client and envtest) without an edit.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectSuccess, minutes, runCommand as run } from '../support/commands.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url)).replace(/\/$/, '');
const fixture = fileURLToPath(new URL('../fixtures/legacy-project/', import.meta.url));

describe('a project scaffolded before the runtime became its own package', () => {
  const base = mkdtempSync(join(tmpdir(), 'kubescaffold-legacy-'));
  const project = join(base, 'legacy');

  beforeAll(() => {
    cpSync(fixture, project, { recursive: true });
    const pkgPath = join(project, 'package.json');
    const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as { dependencies: Record<string, string> };
    expect(Object.keys(pkg.dependencies)).toEqual(['kubescaffold']);
    pkg.dependencies.kubescaffold = `file:${repoRoot}`;
    writeFileSync(pkgPath, `${JSON.stringify(pkg, null, 2)}\n`);
    expectSuccess(run(project, 'npm', ['install', '--no-audit', '--no-fund']), 'npm install');
  }, minutes(10));

  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('keeps importing kubescaffold/runtime in what scaffold generate writes, since its package.json names no @kubescaffold/runtime', () => {
    rmSync(join(project, 'api', 'v1', 'zz_generated.resources.ts'));
    expectSuccess(run(project, 'npx', ['scaffold', 'generate']), 'scaffold generate');
    expect(readFileSync(join(project, 'api', 'v1', 'zz_generated.resources.ts'), 'utf8')).toContain(
      "import { defineResource } from 'kubescaffold/runtime';",
    );
  });

  it('generates its CRD from types that import kubescaffold/runtime', () => {
    expectSuccess(run(project, 'npx', ['scaffold', 'manifests']), 'scaffold manifests');
    expect(readFileSync(join(project, 'config', 'crd', 'bases', 'crew.example.com_captains.yaml'), 'utf8')).toContain(
      'kind: CustomResourceDefinition',
    );
  });

  it(
    'compiles with strict tsc against the deprecated re-exports',
    () => {
      expectSuccess(run(project, 'npm', ['run', 'build']), 'npm run build');
    },
    minutes(5),
  );

  it(
    'passes its own controller tests, on the fake client and on a real control plane',
    () => {
      const output = expectSuccess(run(project, 'npm', ['test']), 'npm test');
      expect(output).toMatch(/Tests\s+\d+ passed/);
      expect(output).toContain('captain_controller.fake.test.ts');
      expect(output).toContain('captain_controller.test.ts');
    },
    minutes(5),
  );
});
