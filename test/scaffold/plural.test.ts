import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { planManifests } from '../../src/generate/manifests.js';
import { scaffoldCreateAPI } from '../../src/scaffold/api.js';
import { initProject, tempProjectDir } from './helpers.js';

describe('create api --plural', () => {
  let dir: { root: string; cleanup: () => void };
  beforeAll(() => {
    dir = tempProjectDir('crew');
    initProject(dir.root);
    scaffoldCreateAPI(dir.root, {
      group: 'crew',
      version: 'v1',
      kind: 'Admiral',
      plural: 'admirales',
      resource: true,
      controller: true,
      namespaced: false,
      force: false,
    });
    scaffoldCreateAPI(dir.root, {
      group: 'crew',
      version: 'v1',
      kind: 'Fleet',
      plural: 'fleetz',
      resource: true,
      controller: false,
      namespaced: true,
      force: false,
    });
  });
  afterAll(() => dir.cleanup());

  it('serves the CRD under the given plural, the one RBAC and PROJECT use, for cluster-scoped and namespaced kinds', () => {
    const files = planManifests({ root: dir.root, generatorVersion: 't' }).files;
    const crd = (plural: string) => {
      const file = files.find((f) => f.path.endsWith(`config/crd/bases/crew.example.com_${plural}.yaml`));
      expect(file, plural).toBeDefined();
      return parse(file!.content) as { spec: { names: { plural: string }; scope: string } };
    };
    expect(crd('admirales').spec).toMatchObject({ names: { plural: 'admirales' }, scope: 'Cluster' });
    expect(crd('fleetz').spec).toMatchObject({ names: { plural: 'fleetz' }, scope: 'Namespaced' });
    const role = files.find((f) => f.path.endsWith('config/rbac/role.yaml'))!.content;
    expect(role).toContain('- admirales');
  });
});
