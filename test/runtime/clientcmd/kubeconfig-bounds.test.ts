// Hostile kubeconfigs: a YAML alias bomb (in the exec extension, where it hung the runtime before), deep nesting, an
// alias of its own ancestor and an oversized file are each refused with a KubeConfigError naming the file, within a
// second, as kubectl refuses them ("yaml: document contains excessive aliasing").
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { KubeConfigError, loadKubeConfig } from '../../../src/runtime/clientcmd/index.js';
import { billionLaughs, deepBlock, deepFlow } from '../../yaml/bombs.js';

const dir = mkdtempSync(join(tmpdir(), 'kc-bounds-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A kubeconfig whose cluster carries the alias bomb in its exec extension, and whose user runs an exec plugin. */
function bombInExecExtension(): string {
  const laughs = billionLaughs()
    .trimEnd()
    .split('\n')
    .map((l) => `        ${l}`)
    .join('\n');
  return `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: https://127.0.0.1:6443
    extensions:
    - name: client.authentication.k8s.io/exec
      extension:
${laughs}
users:
- name: u
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: /bin/true
      provideClusterInfo: true
contexts:
- name: x
  context: { cluster: c, user: u }
current-context: x
`;
}

const cases: Array<[name: string, text: () => string, message: RegExp]> = [
  ['an alias bomb in the exec extension', bombInExecExtension, /refused: excessive aliasing/],
  ['an alias bomb at the top', billionLaughs, /refused: excessive aliasing/],
  [
    'a deeply nested flow document',
    deepFlow,
    /nesting exceeded maxDepth|nested too deeply|nested more than \d+ levels/,
  ],
  [
    'a deeply nested block document',
    deepBlock,
    /nesting exceeded maxDepth|nested too deeply|nested more than \d+ levels/,
  ],
  ['an alias of its own ancestor', () => 'a: &a\n  b: *a\n', /nested more than \d+ levels deep/],
  ['an oversized file', () => `a: ${'x'.repeat(16 * 1024 * 1024)}\n`, /larger than 16 MiB/],
];

describe('loading a hostile kubeconfig', () => {
  // The refusal's message names the bound that stopped the parse (aliases, depth, size): the work stays bounded
  // without a wall-clock assertion, which a loaded machine breaks.
  it.each(cases)('refuses %s by the bound it hits, naming the file', (name, text, message) => {
    const file = join(dir, `${name.replace(/\W+/g, '-')}.yaml`);
    writeFileSync(file, text());
    let caught: unknown;
    try {
      loadKubeConfig({ kubeconfig: file });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(KubeConfigError);
    expect((caught as Error).message).toContain(file);
    expect((caught as Error).message).toMatch(message);
  });

  it('still loads a kubeconfig that uses a few aliases', () => {
    const file = join(dir, 'aliases.yaml');
    writeFileSync(
      file,
      `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: &cluster { server: 'https://127.0.0.1:6443', insecure-skip-tls-verify: true }
- name: d
  cluster: *cluster
users:
- name: u
  user: { token: t }
contexts:
- name: x
  context: { cluster: d, user: u }
current-context: x
`,
    );
    expect(loadKubeConfig({ kubeconfig: file }).server).toBe('https://127.0.0.1:6443');
  });
});
