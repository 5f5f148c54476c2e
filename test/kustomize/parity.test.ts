import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { kustomizeBuildYaml } from '../../src/kustomize/index.js';
import { onPath, peerAvailable } from '../support/peers.js';
import {
  addWebhookAndCertManager,
  createAPI,
  createWebhook,
  edit,
  enablePrometheusAndNetworkPolicy,
  newProject,
  uncommentBlock,
  writeCRD,
  type Project,
} from './trees.js';

const KUBECTL = process.env.KUBECTL ?? onPath('kubectl');
const haveKubectl = peerAvailable(
  'parity with kubectl kustomize',
  KUBECTL ? undefined : 'kubectl is not on PATH (or set KUBECTL)',
);

function kubectlKustomize(dir: string): string {
  return execFileSync(KUBECTL!, ['kustomize', dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function docs(yaml: string): unknown[] {
  return parseAllDocuments(yaml).map((d) => d.toJS());
}

/** scaffold build and kubectl kustomize agree on dir: the same documents in the same order (and, so far, the same text). */
function expectParity(p: Project, rel: string): void {
  const dir = join(p.root, rel);
  const theirs = kubectlKustomize(dir);
  const ours = kustomizeBuildYaml(dir);
  expect(docs(ours)).toEqual(docs(theirs));
  expect(ours).toBe(theirs);
}

const projects: Project[] = [];
afterAll(() => projects.forEach((p) => p.cleanup()));

function track(p: Project): Project {
  projects.push(p);
  return p;
}

describe.skipIf(!haveKubectl)('scaffold build matches kubectl kustomize', () => {
  it('on a plain project with a namespaced and a cluster-scoped API', () => {
    const p = track(newProject('plain'));
    createAPI(p, { group: 'crew', version: 'v1', kind: 'Captain' });
    createAPI(p, { group: 'crew', version: 'v1', kind: 'Admiral', plural: 'admirales', namespaced: false });
    writeCRD(p, { group: 'crew.example.com', kind: 'Captain', plural: 'captains', versions: ['v1'] });
    writeCRD(p, {
      group: 'crew.example.com',
      kind: 'Admiral',
      plural: 'admirales',
      versions: ['v1'],
      scope: 'Cluster',
    });
    for (const dir of [
      'config/default',
      'config/crd',
      'config/rbac',
      'config/manager',
      'config/samples',
      'config/prometheus',
      'config/network-policy',
      'config/sharding',
    ]) {
      expectParity(p, dir);
    }
  });

  it('with prometheus and the network policies enabled, and labels on every resource and selector', () => {
    const p = track(newProject('monitored'));
    createAPI(p, { group: 'crew', version: 'v1', kind: 'Captain' });
    writeCRD(p, { group: 'crew.example.com', kind: 'Captain', plural: 'captains', versions: ['v1'] });
    enablePrometheusAndNetworkPolicy(p);
    expectParity(p, 'config/default');
    edit(p, 'config/default/kustomization.yaml', (t) => uncommentBlock(t, '#labels:', '#    someName: someValue'));
    expectParity(p, 'config/default');
  });

  it('on a multigroup project', () => {
    const p = track(newProject('fleet', { multigroup: true }));
    createAPI(p, { group: 'crew', version: 'v1', kind: 'Captain' });
    createAPI(p, { group: 'ship', version: 'v1beta1', kind: 'Frigate' });
    writeCRD(p, { group: 'crew.example.com', kind: 'Captain', plural: 'captains', versions: ['v1'] });
    writeCRD(p, { group: 'ship.example.com', kind: 'Frigate', plural: 'frigates', versions: ['v1beta1'] });
    expectParity(p, 'config/default');
    expectParity(p, 'config/samples');
  });

  it('on a namespaced project (Role and RoleBinding instead of cluster roles)', () => {
    const p = track(newProject('scoped', { namespaced: true }));
    createAPI(p, { group: 'crew', version: 'v1', kind: 'Captain' });
    writeCRD(p, { group: 'crew.example.com', kind: 'Captain', plural: 'captains', versions: ['v1'] });
    expectParity(p, 'config/default');
  });

  it('with webhooks, cert-manager, metrics certificates and a conversion webhook enabled', () => {
    const p = track(newProject('hooked'));
    createAPI(p, { group: 'crew', version: 'v1', kind: 'Captain' });
    writeCRD(p, { group: 'crew.example.com', kind: 'Captain', plural: 'captains', versions: ['v1', 'v2'] });
    enablePrometheusAndNetworkPolicy(p);
    addWebhookAndCertManager(p, {
      group: 'crew.example.com',
      version: 'v1',
      kind: 'Captain',
      plural: 'captains',
      conversion: true,
    });
    expectParity(p, 'config/default');
    expectParity(p, 'config/webhook');
    expectParity(p, 'config/certmanager');
  });

  it('after scaffold create webhook with defaulting and validation', () => {
    const p = track(newProject('guarded'));
    createAPI(p, { group: 'crew', version: 'v1', kind: 'Captain' });
    writeCRD(p, { group: 'crew.example.com', kind: 'Captain', plural: 'captains', versions: ['v1'] });
    createWebhook(p, {
      group: 'crew',
      version: 'v1',
      kind: 'Captain',
      qualifiedGroup: 'crew.example.com',
      plural: 'captains',
      defaulting: true,
      validation: true,
    });
    for (const dir of ['config/default', 'config/webhook', 'config/certmanager', 'config/network-policy'])
      expectParity(p, dir);
  });

  it('after scaffold create webhook with a conversion webhook, with prometheus and network policies', () => {
    const p = track(newProject('converted', { multigroup: true }));
    createAPI(p, { group: 'crew', version: 'v1', kind: 'Captain' });
    createAPI(p, { group: 'crew', version: 'v2', kind: 'Captain', controller: false });
    writeCRD(p, { group: 'crew.example.com', kind: 'Captain', plural: 'captains', versions: ['v1', 'v2'] });
    createWebhook(p, {
      group: 'crew',
      version: 'v1',
      kind: 'Captain',
      qualifiedGroup: 'crew.example.com',
      plural: 'captains',
      defaulting: true,
      conversion: true,
      spokes: ['v2'],
    });
    enablePrometheusAndNetworkPolicy(p);
    for (const dir of ['config/default', 'config/crd']) expectParity(p, dir);
  });

  it('with webhooks and cert-manager on a multigroup, namespaced project without prometheus', () => {
    const p = track(newProject('harbor', { multigroup: true, namespaced: true }));
    createAPI(p, { group: 'ship', version: 'v1beta1', kind: 'Frigate' });
    writeCRD(p, { group: 'ship.example.com', kind: 'Frigate', plural: 'frigates', versions: ['v1beta1'] });
    addWebhookAndCertManager(p, { group: 'ship.example.com', version: 'v1beta1', kind: 'Frigate', plural: 'frigates' });
    expectParity(p, 'config/default');
  });
});

describe.skipIf(!haveKubectl)('scaffold build matches kubectl kustomize on user edits', () => {
  it('with generators, labels, images, replicas, strategic-merge and JSON patches and replacements over a base', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { strategicMergeCases, userEdits, writeTree } = await import('./fixtures.js');
    const root = mkdtempSync(join(tmpdir(), 'kubescaffold-edits-'));
    try {
      writeTree(root, userEdits);
      writeTree(join(root, 'smp'), strategicMergeCases);
      for (const dir of ['base', 'overlay', 'smp']) {
        const theirs = kubectlKustomize(join(root, dir));
        const ours = kustomizeBuildYaml(join(root, dir));
        expect(docs(ours)).toEqual(docs(theirs));
        expect(ours).toBe(theirs);
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
