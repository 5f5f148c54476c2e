import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { leaderElectionNamespace } from '../../../src/runtime/leaderelection/index.js';

describe('leaderElectionNamespace', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ks-sa-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('takes the configured namespace first', () => {
    expect(leaderElectionNamespace('ops', { KUBESCAFFOLD_SERVICE_ACCOUNT_DIR: dir })).toBe('ops');
  });

  it("reads the pod's namespace from the service account directory that KUBESCAFFOLD_SERVICE_ACCOUNT_DIR names", () => {
    writeFileSync(join(dir, 'namespace'), 'team-a\n');
    expect(leaderElectionNamespace(undefined, { KUBESCAFFOLD_SERVICE_ACCOUNT_DIR: dir })).toBe('team-a');
  });

  it('fails outside a cluster, naming the file it looked for', () => {
    const empty = mkdtempSync(join(tmpdir(), 'ks-sa-empty-'));
    try {
      expect(() => leaderElectionNamespace(undefined, { KUBESCAFFOLD_SERVICE_ACCOUNT_DIR: empty })).toThrow(
        `unable to find leader election namespace: not running in-cluster (no ${join(empty, 'namespace')}), please specify leaderElectionNamespace`,
      );
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
