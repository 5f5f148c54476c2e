/**
 * Webhooks in a namespace-scoped project: `create webhook` and `edit --namespaced` warn that webhooks stay
 * cluster-scoped (kubebuilder v4.12's warning at `edit --namespaced`), and a cluster-scoped project gets no warning.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { tempProjectDir } from './helpers.js';
import { scaffold } from './alpha/cli-run.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

const warning =
  /Warning: webhooks are cluster-scoped, but this project is namespace-scoped: .*namespaceSelector or objectSelector/;

async function project(namespaced: boolean): Promise<string> {
  const { root, cleanup } = tempProjectDir();
  cleanups.push(cleanup);
  await scaffold(root, 'init', '--domain', 'example.com', '--skip-install', ...(namespaced ? ['--namespaced'] : []));
  await scaffold(root, 'create', 'api', '--group', 'crew', '--version', 'v1', '--kind', 'Captain');
  return root;
}

const createWebhook = ['create', 'webhook', '--group', 'crew', '--version', 'v1', '--kind', 'Captain'];

describe('webhooks in a namespace-scoped project', () => {
  it('create webhook warns that they are cluster-scoped', async () => {
    const root = await project(true);
    expect(await scaffold(root, ...createWebhook, '--programmatic-validation')).toMatch(warning);
  });

  it('create webhook does not warn in a cluster-scoped project', async () => {
    const root = await project(false);
    expect(await scaffold(root, ...createWebhook, '--programmatic-validation')).not.toMatch(/Warning:/);
  });

  it('edit --namespaced warns when the project has webhooks, and not when it has none', async () => {
    const withWebhooks = await project(false);
    await scaffold(withWebhooks, ...createWebhook, '--defaulting');
    expect(await scaffold(withWebhooks, 'edit', '--namespaced')).toMatch(warning);
    const without = await project(false);
    expect(await scaffold(without, 'edit', '--namespaced')).not.toMatch(warning);
  });
});
