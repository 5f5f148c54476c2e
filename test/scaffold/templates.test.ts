import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cases, scaffold } from './cases.js';
import { snapshotTree, tempProjectDir } from './helpers.js';

/**
 * The generated trees, file by file, as readable snapshots in __snapshots__/<case>/<path>.snap.
 * Review them like code: they are what users get. Update with `npx vitest run test/scaffold/templates.test.ts --update`.
 * kubebuilder.test.ts checks the files kubebuilder also writes against kubebuilder's own output.
 */
describe.each(cases)('generated project: $name', ({ name, steps }) => {
  let tree: Map<string, string>;
  let cleanup: () => void;

  beforeAll(() => {
    const dir = tempProjectDir('project');
    cleanup = dir.cleanup;
    scaffold(dir.root, steps);
    tree = snapshotTree(dir.root);
  });
  afterAll(() => cleanup());

  it('matches the snapshots', async () => {
    const year = String(new Date().getFullYear());
    for (const [path, content] of [...tree].sort(([a], [b]) => a.localeCompare(b))) {
      await expect(
        content.replaceAll(`Copyright ${year}`, 'Copyright YEAR').replace(/^cliVersion: .*$/m, 'cliVersion: VERSION'),
      ).toMatchFileSnapshot(`__snapshots__/${name}/${path}.snap`);
    }
  });

  it('lists exactly the snapshotted files', async () => {
    await expect([...tree.keys()].sort().join('\n') + '\n').toMatchFileSnapshot(`__snapshots__/${name}/FILES.snap`);
  });
});
