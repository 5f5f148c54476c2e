/**
 * Scaffolded tests build their objects from config/samples (createSample, readSample): a required field added to
 * the spec and missing from the sample fails once, naming the field and the sample; a field with a default passes.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSample, readSample, TestEnvironment } from '../../src/envtest/index.js';
import { defineResource, newClient, type KubeObject } from '../../src/runtime/index.js';
import { FakeClient } from '../../src/runtime/fake/index.js';
import type { RestClient } from '../../src/runtime/rest/index.js';
import { tempDir } from '../support/files.js';

const bin = fileURLToPath(new URL('../../bin/scaffold.js', import.meta.url));
const scaffold = (cwd: string, ...args: string[]) =>
  execFileSync(process.execPath, [bin, ...args], { cwd, stdio: 'pipe', env: { ...process.env, NO_COLOR: '1' } });

interface Ship extends KubeObject {
  spec: { foo?: string; captain: string; homePort?: string };
}
const Ships = defineResource<Ship>({
  group: 'fleet.example.com',
  version: 'v1',
  kind: 'Ship',
  plural: 'ships',
  namespaced: true,
});
const SAMPLE = 'config/samples/fleet_v1_ship.yaml';

// The fields a user adds beside the scaffold's `foo`: one required, one with a default.
const FIELDS = `
  /** captain commands the ship. */
  // +required
  captain: string;

  /** homePort is where the ship is registered; the API server fills it in. */
  // +kubebuilder:default=Nantucket
  // +optional
  homePort?: string;
`;

describe('objects of the scaffolded tests, from config/samples', () => {
  const dir = tempDir('samples-');
  const sample = (): string => join(dir.path, SAMPLE);
  let env: TestEnvironment | undefined;
  let client: RestClient | undefined;

  beforeAll(async () => {
    scaffold(dir.path, 'init', '--domain', 'example.com', '--skip-install');
    scaffold(dir.path, 'create', 'api', '--group', 'fleet', '--version', 'v1', '--kind', 'Ship');
    const types = join(dir.path, 'api/v1/ship_types.ts');
    writeFileSync(
      types,
      readFileSync(types, 'utf8').replace(/^\s*foo\?: string;\n/m, (foo) => foo + FIELDS),
    );
    scaffold(dir.path, 'manifests');
    env = await TestEnvironment.start({ crdDirectoryPaths: [join(dir.path, 'config/crd/bases')] });
    client = newClient(env.kubeConfig);
  });
  afterAll(async () => {
    client?.close();
    await env?.stop();
    dir.remove();
  });

  it('are what the scaffolded controller tests create, not an empty spec of their own', () => {
    for (const test of ['ship_controller.test.ts', 'ship_controller.fake.test.ts']) {
      const text = readFileSync(join(dir.path, 'internal/controller', test), 'utf8');
      expect(text, test).toContain(`await createSample(client, ShipResource, '${SAMPLE}', { name, namespace });`);
      expect(text, test).not.toContain('spec: {}');
    }
  });

  it('names the sample and the required field it lacks when the API server refuses it', async () => {
    await expect(createSample(client!, Ships, sample(), { name: 'no-captain', namespace: 'default' })).rejects.toThrow(
      `${sample()} is not a valid Ship: spec.captain: Required value. Edit the sample: the tests create it`,
    );
  });

  it('passes a sample without a field that has a default, which the API server fills in', async () => {
    writeFileSync(sample(), readFileSync(sample(), 'utf8').replace('foo: bar', 'foo: bar\n  captain: Ahab'));
    const created = await createSample(client!, Ships, sample(), { name: 'pequod', namespace: 'default' });
    expect(created.spec).toEqual({ foo: 'bar', captain: 'Ahab', homePort: 'Nantucket' });
    expect(created.metadata?.labels?.['app.kubernetes.io/managed-by']).toBe('kustomize');
  });

  it('creates the sample on a fake client too, which validates nothing: the envtest test is the one that fails', async () => {
    writeFileSync(sample(), readFileSync(sample(), 'utf8').replace(/\n {2}captain: Ahab/, ''));
    const fake = new FakeClient();
    await expect(createSample(fake, Ships, sample(), { name: 'ghost', namespace: 'default' })).resolves.toMatchObject({
      spec: { foo: 'bar' },
    });
  });

  it('refuses a sample of another kind, a file of two objects, and a missing file, naming the file', () => {
    const other = join(dir.path, 'other.yaml');
    writeFileSync(other, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n');
    expect(() => readSample(Ships, other)).toThrow(
      `${other} holds a ConfigMap of v1, not a Ship of fleet.example.com/v1`,
    );
    writeFileSync(other, `${readFileSync(sample(), 'utf8')}---\n${readFileSync(sample(), 'utf8')}`);
    expect(() => readSample(Ships, other)).toThrow(`${other}: expected one object, found 2`);
    expect(() => readSample(Ships, join(dir.path, 'missing.yaml'))).toThrow(
      /^cannot read the sample .*missing\.yaml: /,
    );
  });
});
