import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// The README's main-job command, minus the build that `npm test` has already done.
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const base = mkdtempSync(join(tmpdir(), 'kubescaffold-quickstart-'));

describe('the quickstart', () => {
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it(
    'takes a new user from nothing to a reconciled sample on a local control plane, and stops everything',
    () => {
      const result = spawnSync(process.execPath, [join(repoRoot, 'scripts', 'quickstart.js'), join(base, 'operator')], {
        cwd: base,
        encoding: 'utf8',
        // Generous for a loaded machine: the quickstart takes about a minute once the envtest binaries are cached.
        timeout: 10 * 60_000,
        env: { ...process.env, NO_COLOR: '1' },
      });
      const output = `${result.stdout}${result.stderr}`;
      expect(result.status, output.slice(-5000)).toBe(0);
      for (const step of [
        'Scaffold a sample operator',
        'Generate the CRD and RBAC',
        'Start a local control plane',
        'Install the CRDs',
        'Build and run the operator',
        'Create the sample Captain',
        'Stop the operator and the control plane',
      ]) {
        expect(output).toContain(step);
      }
      expect(output).toMatch(
        /The reconciled status of default\/captain-sample:\s+status:\s+conditions:\s+- lastTransitionTime: .+\s+message: Captain captain-sample is reconciled\s+observedGeneration: 1\s+reason: Reconciled\s+status: "True"\s+type: Available/,
      );
    },
    12 * 60_000,
  );
});
