/**
 * The [SHARDING] sections init scaffolds: config/sharding (a PodDisruptionBudget) and config/default's patch that runs
 * the manager as a shard ring, both commented out, so that config/default builds as before until a user turns them on.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { kustomizeBuild } from '../../src/kustomize/index.js';
import { checkDNS1123Label, MAX_SHARD_RING_LENGTH, shardRingName } from '../../src/project/names.js';
import { validateRingOptions } from '../../src/runtime/sharding/ring.js';
import { initProject, tempProjectDir } from './helpers.js';

type Deployment = {
  kind: string;
  spec: { replicas: number; template: { spec: { containers: Array<{ name: string; args: string[] }> } } };
};

const dirs: Array<() => void> = [];
afterAll(() => dirs.forEach((cleanup) => cleanup()));

function scaffolded(name: string): string {
  const dir = tempProjectDir(name);
  dirs.push(dir.cleanup);
  initProject(dir.root);
  return dir.root;
}

/** The ring timings the manager defaults to, for checking a ring name the way the manager does at start. */
const ringDefaults = { partitions: 12, leaseDuration: 15_000, renewDeadline: 10_000, retryPeriod: 2_000 };

describe('init scaffolds the [SHARDING] sections, off by default', () => {
  const root = scaffolded('fleet');
  const read = (rel: string) => readFileSync(join(root, rel), 'utf8');

  it('writes config/sharding with a PodDisruptionBudget over the manager pods', () => {
    expect(parse(read('config/sharding/kustomization.yaml'))).toEqual({ resources: ['pdb.yaml'] });
    const pdb = parse(read('config/sharding/pdb.yaml'));
    expect(pdb).toMatchObject({
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'controller-manager', namespace: 'system' },
      spec: { maxUnavailable: 1 },
    });
    // Exactly the labels config/manager/manager.yaml gives the manager's pods (and selects them by).
    const manager = kustomizeBuild(join(root, 'config/manager')).find((o) => o.kind === 'Deployment') as {
      spec: { selector: { matchLabels: object }; template: { metadata: { labels: object } } };
    };
    expect(pdb.spec.selector.matchLabels).toEqual(manager.spec.template.metadata.labels);
    expect(pdb.spec.selector.matchLabels).toEqual(manager.spec.selector.matchLabels);
  });

  it('writes the patch that runs 3 replicas with --shard-ring=<project name>', () => {
    expect(parse(read('config/default/manager_sharding_patch.yaml'))).toEqual([
      { op: 'replace', path: '/spec/replicas', value: 3 },
      { op: 'add', path: '/spec/template/spec/containers/0/args/-', value: '--shard-ring=fleet' },
    ]);
  });

  it('lists both in config/default/kustomization.yaml, commented out, with a pointer to the guide', () => {
    const kustomization = read('config/default/kustomization.yaml');
    expect(kustomization).toMatch(/^# \[SHARDING\] .*\n(# .*\n)*#- \.\.\/sharding$/m);
    expect(kustomization).toMatch(
      /^# \[SHARDING\] .*\n# .*More info: node_modules\/kubescaffold\/docs\/guides\/sharding\.md\n#- path: manager_sharding_patch\.yaml\n# {2}target:\n# {4}kind: Deployment$/m,
    );
    expect(kustomization).not.toMatch(/^- \.\.\/sharding$/m);
    expect(kustomization).not.toMatch(/^- path: manager_sharding_patch\.yaml$/m);
  });

  it('leaves the default build unchanged: one replica, no --shard-ring, no PodDisruptionBudget', () => {
    const objects = kustomizeBuild(join(root, 'config/default'));
    expect(objects.map((o) => o.kind)).not.toContain('PodDisruptionBudget');
    const deployment = objects.find((o) => o.kind === 'Deployment') as unknown as Deployment;
    expect(deployment.spec.replicas).toBe(1);
    const manager = deployment.spec.template.spec.containers.find((c) => c.name === 'manager')!;
    expect(manager.args.some((a) => a.startsWith('--shard-ring'))).toBe(false);
  });
});

describe('the scaffolded ring name', () => {
  it('is the project name when the manager accepts it as a ring name', () => {
    expect(shardRingName('fleet')).toBe('fleet');
    const forty = 'a'.repeat(MAX_SHARD_RING_LENGTH);
    expect(shardRingName(forty)).toBe(forty);
    expect(() => validateRingOptions({ ring: forty, ...ringDefaults })).not.toThrow();
  });

  it('is cut to a valid ring name with a hash of the whole name when the project name is longer', () => {
    // 63 characters, the longest project name; the cut would end on a dash without the trimming.
    const long = `${'a'.repeat(30)}-${'b'.repeat(32)}`;
    const other = `${'a'.repeat(30)}-${'c'.repeat(32)}`;
    expect(checkDNS1123Label(long)).toBeUndefined();
    expect(() => validateRingOptions({ ring: long, ...ringDefaults })).toThrow(/at most 40 characters/);
    const ring = shardRingName(long);
    expect(ring.length).toBeLessThanOrEqual(MAX_SHARD_RING_LENGTH);
    expect(ring.startsWith('a'.repeat(30))).toBe(true);
    expect(ring).not.toContain('--');
    expect(() => validateRingOptions({ ring, ...ringDefaults })).not.toThrow();
    expect(shardRingName(other)).not.toBe(ring);
  });

  it('is what init writes into the patch for a long project name', () => {
    const name = 'a-project-whose-name-is-longer-than-forty-characters';
    const root = scaffolded(name);
    const patch = parse(readFileSync(join(root, 'config/default/manager_sharding_patch.yaml'), 'utf8'));
    expect(patch[1].value).toBe(`--shard-ring=${shardRingName(name)}`);
    expect(() => validateRingOptions({ ring: shardRingName(name), ...ringDefaults })).not.toThrow();
  });
});
