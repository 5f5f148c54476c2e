import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { currentNamespace, loadKubeConfig } from '../../../src/runtime/rest/index.js';

const config = `apiVersion: v1
kind: Config
clusters:
- name: a
  cluster: { server: https://a.example:6443 }
- name: b
  cluster: { server: https://b.example:6443 }
users:
- name: u
  user: { token: t }
contexts:
- name: ctx-a
  context: { cluster: a, user: u }
- name: ctx-b
  context: { cluster: b, user: u, namespace: team-b }
current-context: ctx-a
`;

let dir: string;
let saved: string | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'kc-'));
  writeFileSync(join(dir, 'config'), config);
  saved = process.env.KUBECONFIG;
});
afterEach(() => {
  if (saved === undefined) delete process.env.KUBECONFIG;
  else process.env.KUBECONFIG = saved;
  rmSync(dir, { recursive: true, force: true });
});

describe('loadKubeConfig', () => {
  it('reads $KUBECONFIG and its current context', () => {
    process.env.KUBECONFIG = join(dir, 'config');
    const kc = loadKubeConfig();
    expect(kc.getCurrentCluster()?.server).toBe('https://a.example:6443');
    expect(currentNamespace(kc)).toBe('default');
  });

  it('switches to a named context', () => {
    const kc = loadKubeConfig({ kubeconfig: join(dir, 'config'), context: 'ctx-b' });
    expect(kc.getCurrentCluster()?.server).toBe('https://b.example:6443');
    expect(currentNamespace(kc)).toBe('team-b');
  });

  it('names the known contexts when the requested one is missing', () => {
    expect(() => loadKubeConfig({ kubeconfig: join(dir, 'config'), context: 'nope' })).toThrow(/ctx-a, ctx-b/);
  });
});
