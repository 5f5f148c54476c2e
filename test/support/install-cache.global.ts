/**
 * vitest globalSetup: a folder for the run's installs of scaffolded projects (test/support/project-install.ts),
 * handed to the test files as `inject('installCache')` and removed when the run ends.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

/** Makes the run's install folder and hands it to the test files; the function returned removes it. */
export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'kubescaffold-installs-'));
  project.provide('installCache', dir);
  return () => rmSync(dir, { recursive: true, force: true });
}
