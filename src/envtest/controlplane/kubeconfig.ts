/** The admin kubeconfig of a test environment: embedded certificates, one cluster/user/context named "envtest". */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { parse, stringify } from 'yaml';
import type { KubeConfig } from '@kubescaffold/runtime/rest';

/** The admin user of a test environment's API server: its address and the client certificate it trusts. */
export interface AdminCredentials {
  /** https://127.0.0.1:<port> */
  server: string;
  /** The CA that signed the API server's serving certificate, PEM. */
  caPem: string;
  /** The admin's client certificate (O=system:masters), PEM. */
  certPem: string;
  /** The admin's private key, PEM. */
  keyPem: string;
}

/** The name of the cluster, user and context in the kubeconfig files envtest writes. */
export const KUBECONFIG_NAME = 'envtest';

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

/** A kubeconfig (v1 Config) for the admin user. */
export function kubeconfigYaml(c: AdminCredentials): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: KUBECONFIG_NAME, cluster: { server: c.server, 'certificate-authority-data': b64(c.caPem) } }],
    users: [
      {
        name: `${KUBECONFIG_NAME}-admin`,
        user: { 'client-certificate-data': b64(c.certPem), 'client-key-data': b64(c.keyPem) },
      },
    ],
    contexts: [{ name: KUBECONFIG_NAME, context: { cluster: KUBECONFIG_NAME, user: `${KUBECONFIG_NAME}-admin` } }],
    'current-context': KUBECONFIG_NAME,
    preferences: {},
  });
}

/** The same configuration as the runtime's KubeConfig: the admin's client certificate, embedded. */
export function toKubeConfig(c: AdminCredentials): KubeConfig {
  return {
    server: c.server,
    contextName: KUBECONFIG_NAME,
    tls: { caData: c.caPem, certData: c.certPem, keyData: c.keyPem },
    source: `envtest ${c.server}`,
  };
}

/**
 * Throws unless `path` may receive our kubeconfig: it is absent, empty, or one we wrote before. This
 * keeps `--kubeconfig-out ~/.kube/config` from wiping a user's real clusters.
 */
export async function checkKubeconfigTarget(path: string): Promise<void> {
  let existing: string;
  try {
    existing = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  if (existing.trim() === '') return;
  let clusters: Array<{ name?: string }>;
  try {
    clusters = (parse(existing) as { clusters?: Array<{ name?: string }> } | null)?.clusters ?? [];
  } catch {
    clusters = [{ name: '(unparsable)' }];
  }
  if (clusters.some((cl) => cl.name !== KUBECONFIG_NAME)) {
    throw new Error(`refusing to overwrite ${path}: it holds other clusters; choose another --kubeconfig-out`);
  }
}

/** Writes a kubeconfig file, readable by its owner only, after checkKubeconfigTarget. */
export async function writeKubeconfigFile(path: string, yamlText: string): Promise<void> {
  await checkKubeconfigTarget(path);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, yamlText, { mode: 0o600 });
}
