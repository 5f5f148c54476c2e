import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scaffoldCreateAPI } from '../../src/scaffold/api.js';
import { scaffoldCreateWebhook } from '../../src/scaffold/webhook.js';
import { initProject, snapshotTree, tempProjectDir } from './helpers.js';

/**
 * The generated trees, file by file, as readable snapshots in __snapshots__/<case>/<path>.snap.
 * Review them like code: they are what users get. Update with `npx vitest run -u test/scaffold/templates.test.ts`.
 */
const cases: Array<{ name: string; setup: (root: string) => void }> = [
  {
    name: 'single-group',
    setup: (root) => {
      initProject(root, { owner: 'The Crew Authors' });
      scaffoldCreateAPI(root, { group: 'crew', version: 'v1', kind: 'Captain', resource: true, controller: true, namespaced: true, force: false });
      scaffoldCreateAPI(root, { group: 'crew', version: 'v1', kind: 'Admiral', plural: 'admirales', resource: true, controller: true, namespaced: false, force: false });
      scaffoldCreateAPI(root, { group: 'apps', version: 'v1', kind: 'Deployment', resource: false, controller: true, namespaced: true, force: false });
    },
  },
  {
    name: 'multigroup-namespaced',
    setup: (root) => {
      initProject(root, { multigroup: true, namespaced: true, license: 'none' });
      scaffoldCreateAPI(root, { group: 'crew', version: 'v1', kind: 'Captain', resource: true, controller: true, namespaced: true, force: false });
      scaffoldCreateAPI(root, { group: 'ship', version: 'v1beta1', kind: 'Frigate', resource: true, controller: true, namespaced: true, force: false });
    },
  },
  {
    name: 'webhooks',
    setup: (root) => {
      initProject(root);
      scaffoldCreateAPI(root, { group: 'crew', version: 'v1', kind: 'Captain', resource: true, controller: true, namespaced: true, force: false });
      scaffoldCreateAPI(root, { group: 'crew', version: 'v2', kind: 'Captain', resource: true, controller: false, namespaced: true, force: false });
      scaffoldCreateAPI(root, { group: 'crew', version: 'v1', kind: 'Admiral', resource: true, controller: true, namespaced: false, force: false });
      scaffoldCreateWebhook(root, { group: 'crew', version: 'v1', kind: 'Captain', defaulting: true, validation: true, conversion: true, spokes: ['v2'], force: false });
      scaffoldCreateWebhook(root, { group: 'crew', version: 'v1', kind: 'Admiral', defaulting: false, validation: true, conversion: false, spokes: [], force: false });
    },
  },
];

describe.each(cases)('generated project: $name', ({ name, setup }) => {
  let tree: Map<string, string>;
  let cleanup: () => void;

  beforeAll(() => {
    const dir = tempProjectDir('project');
    cleanup = dir.cleanup;
    setup(dir.root);
    tree = snapshotTree(dir.root);
  });
  afterAll(() => cleanup());

  it('matches the snapshots', async () => {
    const year = String(new Date().getFullYear());
    for (const [path, content] of [...tree].sort(([a], [b]) => a.localeCompare(b))) {
      await expect(content.replaceAll(`Copyright ${year}`, 'Copyright YEAR').replace(/^cliVersion: .*$/m, 'cliVersion: VERSION'))
        .toMatchFileSnapshot(`__snapshots__/${name}/${path}.snap`);
    }
  });

  it('lists exactly the snapshotted files', async () => {
    await expect([...tree.keys()].sort().join('\n') + '\n').toMatchFileSnapshot(`__snapshots__/${name}/FILES.snap`);
  });
});
