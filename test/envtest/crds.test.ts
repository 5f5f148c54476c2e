import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { asCRD, parseCRDs, readCRDs } from '../../src/envtest/controlplane/crds.js';
import { CRD_DIR, GADGET_CRD } from './helpers.js';

describe('reading CRD manifests', () => {
  it('keeps only CustomResourceDefinitions from multi-document YAML', async () => {
    const crds = await readCRDs([CRD_DIR], true);
    expect(crds.map((c) => c.metadata.name)).toEqual(['widgets.test.kubescaffold.io']);
  });

  it('reads JSON as well as YAML, and single files as well as directories', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'crds-test-'));
    try {
      await writeFile(join(dir, 'gadget.json'), JSON.stringify(GADGET_CRD));
      await writeFile(join(dir, 'notes.txt'), 'not a manifest');
      expect((await readCRDs([dir], true)).map((c) => c.spec.names.plural)).toEqual(['gadgets']);
      expect((await readCRDs([join(dir, 'gadget.json')], true)).length).toBe(1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('skips a missing path unless told to fail', async () => {
    await expect(readCRDs(['/nonexistent/crds'], false)).resolves.toEqual([]);
    await expect(readCRDs(['/nonexistent/crds'], true)).rejects.toThrow(/reading CRDs from \/nonexistent\/crds/);
  });

  it('rejects CRDs that are not apiextensions.k8s.io/v1 or lack what installation needs', () => {
    expect(() =>
      parseCRDs(
        'apiVersion: apiextensions.k8s.io/v1beta1\nkind: CustomResourceDefinition\nmetadata: {name: a.b}\n',
        'old.yaml',
      ),
    ).toThrow(/old\.yaml: .*apiextensions\.k8s\.io\/v1beta1/);
    expect(() => asCRD({ kind: 'CustomResourceDefinition', metadata: { name: 'x' }, spec: {} }, 'crds[0]')).toThrow(
      /crds\[0\]: .*spec\.group/,
    );
  });

  it('reports YAML syntax errors with the file name', () => {
    expect(() => parseCRDs('kind: [unclosed', 'bad.yaml')).toThrow(/^bad\.yaml: /);
  });
});
