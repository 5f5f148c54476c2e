/**
 * The [SHARDING] sections of a freshly scaffolded project, turned on as the guide says (uncommenting every line under
 * a [SHARDING] comment of config/default/kustomization.yaml): config/default builds, with our kustomize and with
 * kubectl kustomize alike, to a manager Deployment of 3 replicas started with --shard-ring and a PodDisruptionBudget
 * over its pods, and a real API server accepts the result (server-side apply, dry run).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { applyManifests, connect, type Cluster, type ManifestObject } from '../../src/cluster/index.js';
import { TestEnvironment } from '../../src/envtest/index.js';
import { kustomizeBuildYaml } from '../../src/kustomize/index.js';
import { defineResource, isNotFound, Namespaces } from '../../src/runtime/rest/index.js';
import { kubeconfigFile } from '../cluster/helpers.js';
import { enableSharding, newProject } from '../kustomize/trees.js';
import { onPath, peerAvailable } from '../support/peers.js';

const KUBECTL = process.env.KUBECTL ?? onPath('kubectl');
const haveKubectl = peerAvailable(
  'the [SHARDING] build with kubectl kustomize',
  KUBECTL ? undefined : 'kubectl is not on PATH (or set KUBECTL)',
);

type Labels = Record<string, string>;
type Deployment = ManifestObject & {
  spec: {
    replicas: number;
    selector: { matchLabels: Labels };
    template: { metadata: { labels: Labels }; spec: { containers: Array<{ name: string; args: string[] }> } };
  };
};
const PodDisruptionBudgets = defineResource({
  group: 'policy',
  version: 'v1',
  kind: 'PodDisruptionBudget',
  plural: 'poddisruptionbudgets',
  namespaced: true,
});

type PDB = ManifestObject & { spec: { maxUnavailable: number; selector: { matchLabels: Labels } } };

function objects(yaml: string): ManifestObject[] {
  return parseAllDocuments(yaml).map((d) => d.toJS() as ManifestObject);
}

describe('config/default with the [SHARDING] sections enabled', () => {
  const project = newProject('fleet');
  let ours: string;
  let built: ManifestObject[];

  beforeAll(() => {
    enableSharding(project);
    ours = kustomizeBuildYaml(join(project.root, 'config/default'));
    built = objects(ours);
  });
  afterAll(() => project.cleanup());

  it('builds a manager Deployment of 3 replicas with --shard-ring, and a PodDisruptionBudget over its pods', () => {
    const deployments = built.filter((o) => o.kind === 'Deployment') as Deployment[];
    expect(deployments.map((d) => d.metadata.name)).toEqual(['fleet-controller-manager']);
    const deployment = deployments[0]!;
    expect(deployment.spec.replicas).toBe(3);
    const manager = deployment.spec.template.spec.containers.find((c) => c.name === 'manager')!;
    expect(manager.args).toContain('--shard-ring=fleet');
    // The ring comes on top of the other patches' flags, not in their place.
    expect(manager.args).toEqual(expect.arrayContaining(['--metrics-bind-address=:8443', '--leader-elect']));

    const pdbs = built.filter((o) => o.kind === 'PodDisruptionBudget') as PDB[];
    expect(pdbs).toHaveLength(1);
    const pdb = pdbs[0]!;
    expect(pdb.apiVersion).toBe('policy/v1');
    expect(pdb.metadata).toMatchObject({ name: 'fleet-controller-manager', namespace: 'fleet-system' });
    expect(pdb.metadata.namespace).toBe(deployment.metadata.namespace);
    expect(pdb.spec.maxUnavailable).toBe(1);
    // A label selector matches a pod when the pod has every one of its labels.
    const selector = Object.entries(pdb.spec.selector.matchLabels);
    expect(selector.length).toBeGreaterThan(0);
    const podLabels = deployment.spec.template.metadata.labels;
    for (const [key, value] of selector) expect(podLabels[key], key).toBe(value);
    expect(pdb.spec.selector.matchLabels).toEqual(deployment.spec.selector.matchLabels);
  });

  it.skipIf(!haveKubectl)('builds to the same output with kubectl kustomize', () => {
    const theirs = execFileSync(KUBECTL!, ['kustomize', join(project.root, 'config/default')], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    expect(built).toEqual(objects(theirs));
    expect(ours).toBe(theirs);
  });

  describe('on a real API server', () => {
    let env: TestEnvironment;
    let kc: { file: string; cleanup: () => void };
    let cluster: Cluster;

    beforeAll(async () => {
      env = await TestEnvironment.start();
      kc = kubeconfigFile(env.kubeconfigYaml());
      cluster = await connect({ kubeconfig: kc.file });
    });
    afterAll(async () => {
      cluster?.close();
      await env?.stop();
      kc?.cleanup();
    });

    it('accepts every object, the PodDisruptionBudget and the Deployment included, in a server-side dry run', async () => {
      // A dry run stores nothing, so the namespace the objects go into is created for real first.
      const namespaces = built.filter((o) => o.kind === 'Namespace');
      expect(namespaces.map((o) => o.metadata.name)).toEqual(['fleet-system']);
      await applyManifests(cluster, namespaces);

      const results = await applyManifests(cluster, built, { dryRun: true });
      expect(results.filter((r) => r.action === 'skipped')).toEqual([]);
      const checked = results.map((r) => `${r.object.kind}/${r.object.metadata.name}`);
      expect(checked).toContain('PodDisruptionBudget/fleet-controller-manager');
      expect(checked).toContain('Deployment/fleet-controller-manager');
      // Checked, not stored.
      await expect(
        cluster.client.get(PodDisruptionBudgets, { namespace: 'fleet-system', name: 'fleet-controller-manager' }),
      ).rejects.toSatisfy(isNotFound);
      await cluster.client.get(Namespaces, { name: 'fleet-system' });
    });

    it('refuses a PodDisruptionBudget the API server finds invalid, so the dry run is a real check', async () => {
      const pdb = built.find((o) => o.kind === 'PodDisruptionBudget') as PDB;
      const broken = { ...pdb, spec: { ...pdb.spec, maxUnavailable: -1 } };
      await expect(applyManifests(cluster, [broken], { dryRun: true })).rejects.toThrow(/maxUnavailable/);
    });
  });
});
