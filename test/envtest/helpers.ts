/** Shared pieces of the envtest integration tests. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as k8s from '@kubernetes/client-node';
import type { TestEnvironment } from '../../src/envtest/index.js';
import { testCRD } from '../support/crd.js';

export const CRD_DIR = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'crds');
export const WIDGETS = { group: 'test.kubescaffold.io', version: 'v1', plural: 'widgets' } as const;

/** A second CRD, given as an object rather than a file. */
export const GADGET_CRD = testCRD({
  group: 'test.kubescaffold.io',
  kind: 'Gadget',
  scope: 'Cluster',
  versions: [{ name: 'v1', spec: { label: { type: 'string' } } }],
});

/** Command lines of live processes that mention `text` (Linux /proc). */
export function processesMentioning(text: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (cmd.includes(text)) found.push(`${pid}: ${cmd}`);
    } catch {
      // exited while we looked
    }
  }
  return found;
}

/** What must hold after stop(): no process of the environment and no temp dir. */
export function leftovers(env: TestEnvironment): { processes: string[]; tempDirExists: boolean } {
  return { processes: processesMentioning(env.tempDir), tempDirExists: existsSync(env.tempDir) };
}

/** @kubernetes/client-node API clients for the admin, loaded from the environment's kubeconfig file body. */
export function clients(env: TestEnvironment) {
  const kc = new k8s.KubeConfig();
  kc.loadFromString(env.kubeconfigYaml());
  return { core: kc.makeApiClient(k8s.CoreV1Api), custom: kc.makeApiClient(k8s.CustomObjectsApi) };
}

export function widget(namespace: string, name: string, spec: Record<string, unknown>) {
  return { apiVersion: `${WIDGETS.group}/${WIDGETS.version}`, kind: 'Widget', metadata: { name, namespace }, spec };
}
