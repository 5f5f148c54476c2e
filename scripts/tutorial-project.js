#!/usr/bin/env node
// Writes docs/tutorial/project, the tutorial's finished project, by following the tutorial (docs/tutorial) in a
// temporary directory with this checkout's CLI, exactly as test/e2e/tutorial.test.ts does, and publishing what the
// steps leave. Run it after changing a chapter or a template the tutorial uses; the test fails until the copy is the
// steps' result. Needs `npm run build` first. Usage: node scripts/tutorial-project.js
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { followTutorial } from './lib/follow-tutorial.js';
import { publishProject } from './lib/tutorial-project.js';

const repoRoot = fileURLToPath(new URL('../', import.meta.url));
const started = Date.now();
const base = mkdtempSync(join(tmpdir(), 'kubescaffold-tutorial-'));
try {
  const { project } = followTutorial({
    tutorialDir: join(repoRoot, 'docs', 'tutorial'),
    base,
    scaffoldBin: join(repoRoot, 'bin', 'scaffold.js'),
    log: (line) => console.log(`${((Date.now() - started) / 1000).toFixed(0).padStart(4)}s ${line}`),
  });
  publishProject(project, join(repoRoot, 'docs', 'tutorial', 'project'));
  console.log('wrote docs/tutorial/project');
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
} finally {
  rmSync(base, { recursive: true, force: true });
}
