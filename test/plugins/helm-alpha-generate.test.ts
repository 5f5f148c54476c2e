/**
 * `alpha generate` on a project with a chart from the helm/v2-alpha plugin: PROJECT records the plugin, and replaying
 * it (scaffold manifests, then the edit, as kubebuilder's edit runs make manifests first) scaffolds the same tree.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { snapshotTree, tempProjectDir } from '../scaffold/helpers.js';
import { differingFiles, scaffold } from '../scaffold/alpha/cli-run.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

describe('alpha generate with the helm/v2-alpha plugin', () => {
  it('scaffolds the same tree, chart included, again from PROJECT', async () => {
    const { root, cleanup } = tempProjectDir('project');
    cleanups.push(cleanup);
    await scaffold(root, 'init', '--domain', 'example.com', '--skip-install');
    await scaffold(root, 'create', 'api', '--group', 'crew', '--version', 'v1', '--kind', 'Captain');
    await scaffold(
      root,
      'create',
      'webhook',
      '--group',
      'crew',
      '--version',
      'v1',
      '--kind',
      'Captain',
      '--defaulting',
    );
    await scaffold(root, 'manifests');
    await scaffold(root, 'edit', '--plugins=helm/v2-alpha', '--output-dir=charts');
    const before = snapshotTree(root);
    expect([...before.keys()]).toEqual(
      expect.arrayContaining([
        'charts/chart/values.yaml',
        'charts/chart/templates/webhook/mutating-webhook-configuration.yaml',
        'dist/install.yaml',
      ]),
    );

    const out = join(root, '..', 'again');
    const printed = await scaffold(join(root, '..'), 'alpha', 'generate', '--input-dir', root, '--output-dir', out);

    expect(differingFiles(before, snapshotTree(out))).toEqual([]);
    const manifests = printed.indexOf('$ scaffold manifests');
    expect(manifests).toBeGreaterThan(printed.indexOf('$ scaffold create webhook'));
    expect(printed.indexOf('$ scaffold edit --plugins=helm/v2-alpha --output-dir=charts')).toBeGreaterThan(manifests);
  });

  it('refuses through the CLI a --manifests file that does not exist, writing nothing', async () => {
    const { root, cleanup } = tempProjectDir('project');
    cleanups.push(cleanup);
    await scaffold(root, 'init', '--domain', 'example.com', '--skip-install');
    const before = snapshotTree(root);
    await expect(scaffold(root, 'edit', '--plugins=helm/v2-alpha', '--manifests', 'missing.yaml')).rejects.toThrow(
      /--manifests missing\.yaml does not exist/,
    );
    expect(snapshotTree(root)).toEqual(before);
  });
});
