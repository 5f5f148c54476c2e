/**
 * `create webhook --defaulting-path` / `--validation-path`: the paths reach the markers, the runtime registration and
 * PROJECT (checked against the real kubebuilder v4.16.0 running the same command), survive `alpha generate`, and the
 * refusals leave the project as it was.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runManifests } from '../../src/generate/command.js';
import { loadProject } from '../../src/project/load.js';
import { generateFromProject } from '../../src/scaffold/alpha/generate.js';
import { scaffoldCreateAPI } from '../../src/scaffold/api.js';
import { registryDependencies } from '../../src/scaffold/dependencies.js';
import { scaffoldCreateWebhook, type CreateWebhookOptions } from '../../src/scaffold/webhook.js';
import { initProject, snapshotTree, tempProjectDir } from './helpers.js';
import { tempDir } from '../support/files.js';
import { findKubebuilder, runWithGoEnv } from '../support/kubebuilder.js';
import { onPath, peerAvailable, requirePeer } from '../support/peers.js';
import { GO_BUILD_MS } from '../support/limits.js';

const VERSION = 'v4.16.0';
const what = `create webhook --defaulting-path/--validation-path against kubebuilder ${VERSION}`;

const webhook: CreateWebhookOptions = {
  group: 'crew',
  version: 'v1',
  kind: 'Captain',
  defaulting: true,
  validation: true,
  conversion: false,
  spokes: [],
  force: false,
  defaultingPath: '/custom-mutate',
  validationPath: '/custom-validate',
};

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** A project with the Captain API; `cleanupsOf` removes it (each test's, unless given). */
function projectWithCaptain(cleanupsOf: Array<() => void> = cleanups): string {
  const { root, cleanup } = tempProjectDir('project');
  cleanupsOf.push(cleanup);
  initProject(root);
  scaffoldCreateAPI(root, {
    group: 'crew',
    version: 'v1',
    kind: 'Captain',
    resource: true,
    controller: true,
    namespaced: true,
    force: false,
  });
  return root;
}

const webhookMarkers = (file: string): string[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('// +kubebuilder:webhook:'));

describe('create webhook with custom paths', () => {
  it('writes the paths into the markers, the registration and the generated webhook configurations', async () => {
    const root = projectWithCaptain();
    scaffoldCreateWebhook(root, webhook);
    const code = readFileSync(join(root, 'internal/webhook/v1/captain_webhook.ts'), 'utf8');
    expect(code).toContain(".withDefaulter(new CaptainCustomDefaulter(), { path: '/custom-mutate' })");
    expect(code).toContain(".withValidator(new CaptainCustomValidator(), { path: '/custom-validate' })");
    await runManifests({ root, generatorVersion: 't' });
    const manifests = readFileSync(join(root, 'config/webhook/manifests.yaml'), 'utf8');
    expect(manifests).toContain('path: /custom-mutate');
    expect(manifests).toContain('path: /custom-validate');
    expect(manifests).not.toContain('/mutate-crew-example-com-v1-captain');
  });

  it('keeps a recorded path when the webhook is scaffolded again with --force, and alpha generate carries it', async () => {
    const root = projectWithCaptain();
    scaffoldCreateWebhook(root, { ...webhook, validation: false, validationPath: undefined });
    scaffoldCreateWebhook(root, { ...webhook, defaultingPath: undefined, force: true });
    expect(loadProject(root).resources?.[0]?.webhooks).toMatchObject({
      defaultingPath: '/custom-mutate',
      validationPath: '/custom-validate',
    });
    const out = join(root, '..', 'again');
    const result = await generateFromProject({
      inputDir: root,
      outputDir: out,
      force: false,
      dependencies: () => registryDependencies('0.1.0'),
      cliVersion: '0.1.0',
    });
    expect(result.commands).toContain(
      'scaffold create webhook --group crew --version v1 --kind Captain --defaulting --programmatic-validation --defaulting-path /custom-mutate --validation-path /custom-validate',
    );
    const file = 'internal/webhook/v1/captain_webhook.ts';
    expect(readFileSync(join(out, file), 'utf8')).toBe(readFileSync(join(root, file), 'utf8'));
  });

  describe('refuses, changing nothing,', () => {
    it.each([
      [{ defaulting: false }, '--defaulting-path can only be used with --defaulting'],
      [{ validation: false }, '--validation-path can only be used with --programmatic-validation'],
      [{ defaultingPath: 'custom' }, '--defaulting-path "custom" is not a webhook path'],
      [{ validationPath: '/a,b' }, '--validation-path "/a,b" is not a webhook path'],
      [{ validationPath: '/custom-mutate' }, 'are both /custom-mutate'],
    ] as Array<[Partial<CreateWebhookOptions>, string]>)('%o', (change, error) => {
      const root = projectWithCaptain();
      const tree = snapshotTree(root);
      expect(() => scaffoldCreateWebhook(root, { ...webhook, ...change })).toThrow(error);
      expect(snapshotTree(root)).toEqual(tree);
    });
  });
});

const available = peerAvailable(what, onPath('go') ? undefined : 'Go is not installed (it builds kubebuilder)');

describe.skipIf(!available)(what, () => {
  const suiteCleanups: Array<() => void> = [];
  let ours: string;
  let theirs: { path: string; remove: () => void };
  let theirRoot: string;

  beforeAll(async () => {
    const kubebuilder = await requirePeer(what, () => findKubebuilder(VERSION));
    ours = projectWithCaptain(suiteCleanups);
    scaffoldCreateWebhook(ours, webhook);
    theirs = tempDir('ks-kubebuilder-webhook-paths-');
    theirRoot = join(theirs.path, 'project');
    mkdirSync(theirRoot);
    const gvk = ['--group=crew', '--version=v1', '--kind=Captain', '--make=false'];
    for (const args of [
      ['init', '--domain=example.com', '--repo=example.com/project', '--fetch-deps=false', '--skip-go-version-check'],
      ['create', 'api', ...gvk, '--resource=true', '--controller=true'],
      [
        'create',
        'webhook',
        ...gvk,
        '--defaulting',
        '--defaulting-path=/custom-mutate',
        '--programmatic-validation',
        '--validation-path=/custom-validate',
      ],
    ])
      runWithGoEnv(kubebuilder, args, theirRoot);
  }, GO_BUILD_MS);
  afterAll(() => {
    theirs?.remove();
    for (const c of suiteCleanups) c();
  });

  it("records the paths in PROJECT's webhooks as kubebuilder does", () => {
    const webhooks = (root: string): unknown =>
      (parse(readFileSync(join(root, 'PROJECT'), 'utf8')) as { resources: Array<{ webhooks: unknown }> }).resources[0]!
        .webhooks;
    expect(webhooks(ours)).toEqual(webhooks(theirRoot));
    expect(webhooks(ours)).toMatchObject({ defaultingPath: '/custom-mutate', validationPath: '/custom-validate' });
  });

  it("writes kubebuilder's webhook markers", () => {
    expect(webhookMarkers(join(ours, 'internal/webhook/v1/captain_webhook.ts'))).toEqual(
      webhookMarkers(join(theirRoot, 'internal/webhook/v1/captain_webhook.go')),
    );
  });
});
