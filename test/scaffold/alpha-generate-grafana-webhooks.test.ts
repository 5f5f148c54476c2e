/**
 * `alpha generate` on a project that used the grafana plugin and has webhooks for built-in kinds: PROJECT records both
 * (the plugin's key, core: true resources with webhooks), and replaying it must scaffold the same tree.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { snapshotTree, tempProjectDir } from './helpers.js';
import { differingFiles, scaffold } from './alpha/cli-run.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

describe('alpha generate with the grafana plugin and webhooks for built-in kinds', () => {
  it('scaffolds the same tree again from PROJECT', async () => {
    const { root, cleanup } = tempProjectDir('project');
    cleanups.push(cleanup);
    await scaffold(root, 'init', '--domain', 'example.com', '--skip-install', '--plugins=grafana/v1-alpha');
    await scaffold(
      root,
      'create',
      'api',
      '--group',
      'apps',
      '--version',
      'v1',
      '--kind',
      'Deployment',
      '--resource=false',
    );
    await scaffold(
      root,
      'create',
      'webhook',
      '--group',
      'apps',
      '--version',
      'v1',
      '--kind',
      'Deployment',
      '--defaulting',
      '--programmatic-validation',
    );
    await scaffold(
      root,
      'create',
      'webhook',
      '--group',
      'core',
      '--version',
      'v1',
      '--kind',
      'Pod',
      '--programmatic-validation',
    );
    const before = snapshotTree(root);
    expect([...before.keys()]).toEqual(
      expect.arrayContaining([
        'grafana/controller-runtime-metrics.json',
        'internal/webhook/v1/deployment_webhook.ts',
        'internal/webhook/v1/pod_webhook.ts',
      ]),
    );

    const out = join(root, '..', 'again');
    const printed = await scaffold(join(root, '..'), 'alpha', 'generate', '--input-dir', root, '--output-dir', out);

    expect(differingFiles(before, snapshotTree(out))).toEqual([]);
    expect(printed).toContain(
      '$ scaffold create webhook --group apps --version v1 --kind Deployment --defaulting --programmatic-validation',
    );
    expect(printed).toContain(
      '$ scaffold create webhook --group core --version v1 --kind Pod --programmatic-validation',
    );
    expect(printed).toContain('$ scaffold edit --plugins=grafana/v1-alpha');
  });
});
