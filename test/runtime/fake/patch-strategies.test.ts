import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { hasGo } from '../../../scripts/lib/controller-gen.js';
import { OBJECT_META, PATCH_KINDS, PATCH_TYPES } from '../../../src/runtime/fake/patch-strategies.js';

// The fake client's strategic-merge table is generated from k8s.io/api's struct tags: it must be what the generator
// writes now (strategic-merge.integration.test.ts checks it against a real API server's OpenAPI documents).
describe('src/runtime/fake/patch-strategies.ts', () => {
  it.skipIf(!hasGo())(
    'is what scripts/generate-patch-strategies.js generates from k8s.io/api',
    () => {
      const r = spawnSync('node', ['scripts/generate-patch-strategies.js', '--check'], { encoding: 'utf8' });
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
    },
    120_000,
  );

  it('refers only to types it has, and holds the pod template and metadata strategies', () => {
    for (const [kind, type] of Object.entries(PATCH_KINDS)) expect(PATCH_TYPES[type], kind).toBeDefined();
    for (const fields of Object.values(PATCH_TYPES))
      for (const [, , child] of Object.values(fields)) if (child) expect(PATCH_TYPES[child], child).toBeDefined();
    expect(PATCH_TYPES['core/v1.PodSpec']?.containers).toEqual(['merge', 'name', 'core/v1.Container']);
    expect(PATCH_TYPES['core/v1.PodSpec']?.volumes).toEqual(['merge,retainKeys', 'name', 'core/v1.Volume']);
    expect(PATCH_TYPES['core/v1.Container']?.ports).toEqual(['merge', 'containerPort']);
    expect(PATCH_TYPES[OBJECT_META]).toEqual({ ownerReferences: ['merge', 'uid'], finalizers: ['merge', ''] });
    expect(PATCH_KINDS['apps/v1/Deployment']).toBe('apps/v1.Deployment');
  });
});
