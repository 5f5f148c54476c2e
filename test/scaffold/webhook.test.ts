import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { scaffoldCreateAPI, type CreateAPIOptions } from '../../src/scaffold/api.js';
import { scaffoldCreateWebhook, webhookPath, type CreateWebhookOptions } from '../../src/scaffold/webhook.js';
import { initProject, snapshotTree, tempProjectDir } from './helpers.js';

const api: CreateAPIOptions = {
  group: 'crew',
  version: 'v1',
  kind: 'Captain',
  resource: true,
  controller: true,
  namespaced: true,
  force: false,
};
const webhook: CreateWebhookOptions = {
  group: 'crew',
  version: 'v1',
  kind: 'Captain',
  defaulting: true,
  validation: false,
  conversion: false,
  spokes: [],
  force: false,
};

let root: string;
let cleanup: () => void;

beforeEach(() => {
  ({ root, cleanup } = tempProjectDir('project'));
  initProject(root);
  scaffoldCreateAPI(root, api);
});
afterEach(() => cleanup());

function expectRejected(run: () => unknown, message: RegExp): void {
  const before = snapshotTree(root);
  expect(run).toThrow(message);
  expect(snapshotTree(root)).toEqual(before);
}

describe('scaffold create webhook refuses bad input and changes nothing', () => {
  it('needs at least one webhook type', () => {
    expectRejected(
      () => scaffoldCreateWebhook(root, { ...webhook, defaulting: false }),
      /requires at least one of --defaulting, --programmatic-validation and --conversion/,
    );
  });

  it('refuses a conversion webhook for a built-in kind, saying why', () => {
    const deployment = { ...webhook, group: 'apps', kind: 'Deployment', conversion: true };
    expectRejected(
      () => scaffoldCreateWebhook(root, deployment),
      /--conversion cannot be used for apps\/v1 Deployment: it is a Kubernetes built-in kind, whose versions the API server converts itself/,
    );
    expectRejected(
      () => scaffoldCreateWebhook(root, { ...deployment, spokes: ['v1beta1'] }),
      /--conversion cannot be used for apps\/v1 Deployment/,
    );
  });

  it('refuses a kind of a built-in group that Kubernetes does not have', () => {
    expectRejected(
      () => scaffoldCreateWebhook(root, { ...webhook, group: 'apps', kind: 'Frigate' }),
      /apps\/v1 Frigate is not a Kubernetes built-in kind known to @kubernetes\/client-node \(no model V1Frigate\)/,
    );
    expectRejected(
      () => scaffoldCreateWebhook(root, { ...webhook, group: 'core', version: 'v7', kind: 'Pod' }),
      /core\/v7 Pod is not a Kubernetes built-in kind/,
    );
  });

  it('needs an existing API', () => {
    expectRejected(
      () => scaffoldCreateWebhook(root, { ...webhook, kind: 'Admiral' }),
      /no API found for crew.example.com\/v1, Kind Admiral: run `scaffold create api/,
    );
  });

  it('needs spokes that exist, and only with --conversion', () => {
    expectRejected(
      () => scaffoldCreateWebhook(root, { ...webhook, conversion: true, spokes: ['v2'] }),
      /invalid spoke version "v2"/,
    );
    expectRejected(
      () => scaffoldCreateWebhook(root, { ...webhook, spokes: ['v2'] }),
      /--spoke can only be used with --conversion/,
    );
    expectRejected(
      () => scaffoldCreateWebhook(root, { ...webhook, defaulting: false, conversion: true }),
      /--conversion needs the other versions/,
    );
    expectRejected(
      () => scaffoldCreateWebhook(root, { ...webhook, conversion: true, spokes: ['v1'] }),
      /--spoke v1 is the hub \(--version v1\): a spoke is another version of Captain/,
    );
  });

  it('refuses a webhook type that already exists, unless --force', () => {
    scaffoldCreateWebhook(root, webhook);
    expectRejected(
      () => scaffoldCreateWebhook(root, webhook),
      /defaulting webhook already exists for this resource; pass --force/,
    );
    expect(() => scaffoldCreateWebhook(root, { ...webhook, force: true })).not.toThrow();
  });

  it('asks for --force before re-rendering a webhook file to add a type', () => {
    scaffoldCreateWebhook(root, webhook);
    expectRejected(
      () => scaffoldCreateWebhook(root, { ...webhook, defaulting: false, validation: true }),
      /captain_webhook.ts already exists; adding a webhook type re-renders it/,
    );
    scaffoldCreateWebhook(root, { ...webhook, defaulting: false, validation: true, force: true });
    const source = snapshotTree(root).get('internal/webhook/v1/captain_webhook.ts')!;
    expect(source).toContain('class CaptainCustomDefaulter');
    expect(source).toContain('class CaptainCustomValidator');
  });
});

describe('scaffold create webhook', () => {
  it('uses kubebuilder paths', () => {
    expect(webhookPath('mutate', 'crew.example.com', 'v1', 'Captain')).toBe('/mutate-crew-example-com-v1-captain');
  });

  it('wires main.ts, records PROJECT and turns on the webhook sections of config/default', () => {
    scaffoldCreateWebhook(root, { ...webhook, validation: true });
    const tree = snapshotTree(root);
    expect(tree.get('cmd/main.ts')).toContain(
      "if (process.env.ENABLE_WEBHOOKS !== 'false') {\n  setupCaptainWebhookWithManager(mgr);\n}",
    );
    expect(tree.get('PROJECT')).toMatch(/webhooks:\n\s+defaulting: true\n\s+validation: true\n\s+webhookVersion: v1/);
    const kustomization = tree.get('config/default/kustomization.yaml')!;
    for (const line of [
      '- ../webhook',
      '- ../certmanager',
      '- path: manager_webhook_patch.yaml',
      'replacements:',
      '         kind: ValidatingWebhookConfiguration',
      '         kind: MutatingWebhookConfiguration',
    ]) {
      expect(kustomization.split('\n')).toContain(line);
    }
    expect(tree.get('config/network-policy/kustomization.yaml')).toContain('- allow-webhook-traffic.yaml');
  });

  it("scaffolds webhooks for a built-in kind as kubebuilder does: its type in the webhook file, the runtime's descriptor, core: true in PROJECT, and a warning", () => {
    const result = scaffoldCreateWebhook(root, { ...webhook, group: 'apps', kind: 'Deployment', validation: true });
    expect(result.warnings).toEqual([
      'Webhooks for core types may cause circular dependencies during deployment. More info: https://book.kubebuilder.io/reference/webhook-bootstrap-problem',
    ]);
    expect(result.written).toContain('internal/webhook/v1/deployment_webhook.ts');
    const tree = snapshotTree(root);
    const source = tree.get('internal/webhook/v1/deployment_webhook.ts')!;
    expect(source).toContain('export type Deployment = k8s.V1Deployment;');
    // the runtime's descriptor of the kind, not a copy
    expect(source).toContain("import { Deployments } from '@kubescaffold/runtime/rest';");
    expect(source).toContain('newWebhookManagedBy(mgr, Deployments)');
    expect(source).toContain(
      '// +kubebuilder:webhook:path=/mutate-apps-v1-deployment,mutating=true,failurePolicy=fail,sideEffects=None,groups=apps,resources=deployments,',
    );
    expect(source).toContain(
      '// +kubebuilder:webhook:path=/validate-apps-v1-deployment,mutating=false,failurePolicy=fail,sideEffects=None,groups=apps,resources=deployments,',
    );
    expect(tree.get('internal/webhook/v1/deployment_webhook.test.ts')).toContain(
      "import type { Deployment } from './deployment_webhook.js';",
    );
    expect(tree.get('cmd/main.ts')).toContain(
      "if (process.env.ENABLE_WEBHOOKS !== 'false') {\n  setupDeploymentWebhookWithManager(mgr);\n}",
    );
    const project = parse(tree.get('PROJECT')!) as { resources: unknown[] };
    expect(project.resources).toContainEqual({
      core: true,
      group: 'apps',
      version: 'v1',
      kind: 'Deployment',
      path: '@kubernetes/client-node',
      webhooks: { defaulting: true, validation: true, webhookVersion: 'v1' },
    });
  });

  it('adds the webhooks to the PROJECT entry of a built-in kind that already has a controller, once', () => {
    scaffoldCreateAPI(root, {
      group: 'apps',
      version: 'v1',
      kind: 'Deployment',
      resource: false,
      controller: true,
      namespaced: true,
      force: false,
    });
    const deployment = { ...webhook, group: 'apps', kind: 'Deployment' };
    scaffoldCreateWebhook(root, deployment);
    const resources = (
      parse(snapshotTree(root).get('PROJECT')!) as { resources: Array<Record<string, unknown>> }
    ).resources.filter((r) => r.kind === 'Deployment');
    expect(resources).toEqual([
      {
        controller: true,
        core: true,
        group: 'apps',
        version: 'v1',
        kind: 'Deployment',
        path: '@kubernetes/client-node',
        webhooks: { defaulting: true, webhookVersion: 'v1' },
      },
    ]);
    expectRejected(
      () => scaffoldCreateWebhook(root, deployment),
      /defaulting webhook already exists for this resource; pass --force/,
    );
  });

  it('writes groups="" and the double-dash path for the core group, as kubebuilder does', () => {
    scaffoldCreateWebhook(root, { ...webhook, group: 'core', kind: 'Pod', defaulting: false, validation: true });
    const source = snapshotTree(root).get('internal/webhook/v1/pod_webhook.ts')!;
    expect(source).toContain(
      '// +kubebuilder:webhook:path=/validate--v1-pod,mutating=false,failurePolicy=fail,sideEffects=None,groups="",resources=pods,',
    );
    expect(source).toContain('newWebhookManagedBy(mgr, Pods)');
    // a core kind the runtime has no descriptor for gets one of its own, in the core group ''
    scaffoldCreateWebhook(root, { ...webhook, group: 'core', kind: 'LimitRange', defaulting: false, validation: true });
    expect(snapshotTree(root).get('internal/webhook/v1/limitrange_webhook.ts')).toContain(
      "group: '',\n  version: 'v1',\n  kind: 'LimitRange',",
    );
  });

  it('makes the hub the storage version and scaffolds spoke conversions', () => {
    scaffoldCreateAPI(root, { ...api, version: 'v2', controller: false });
    scaffoldCreateWebhook(root, { ...webhook, defaulting: false, conversion: true, spokes: ['v2'] });
    const tree = snapshotTree(root);
    expect(tree.get('api/v1/captain_types.ts')).toContain(
      '// +kubebuilder:object:root=true\n// +kubebuilder:storageversion\n',
    );
    expect(tree.get('api/v2/captain_types.ts')).not.toContain('storageversion');
    expect(tree.get('api/v2/captain_conversion.ts')).toContain(
      'export const captainConversion: Conversion<Captain, HubCaptain>',
    );
    expect(tree.get('config/crd/kustomization.yaml')).toContain('- path: patches/webhook_in_captains.yaml');
    expect(tree.get('config/default/kustomization.yaml')).toContain('         name: captains.crew.example.com');
  });
});

describe('scaffold create webhook for a built-in kind on the command line', () => {
  const bin = fileURLToPath(new URL('../../bin/scaffold.js', import.meta.url));
  const scaffold = (...args: string[]) => spawnSync(process.execPath, [bin, ...args], { cwd: root, encoding: 'utf8' });

  it("prints kubebuilder's warning and what it wrote", () => {
    const r = scaffold(
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
    expect(r.status).toBe(0);
    expect(r.stderr).toBe(
      'Warning: Webhooks for core types may cause circular dependencies during deployment. More info: https://book.kubebuilder.io/reference/webhook-bootstrap-problem\n',
    );
    expect(r.stdout).toContain('internal/webhook/v1/deployment_webhook.ts');
  });

  it('refuses --conversion with a non-zero exit and changes nothing', () => {
    const before = snapshotTree(root);
    const r = scaffold(
      'create',
      'webhook',
      '--group',
      'apps',
      '--version',
      'v1',
      '--kind',
      'Deployment',
      '--conversion',
      '--spoke',
      'v1beta1',
    );
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('--conversion cannot be used for apps/v1 Deployment: it is a Kubernetes built-in kind');
    expect(snapshotTree(root)).toEqual(before);
  });
});
