// Fuzzing the kubeconfig loader: a kubeconfig with every kind of entry the loader reads (certificate data and files,
// token, exec with env and args, an auth-provider, impersonation, the exec cluster extension), mutated as text and
// bytes or as a parsed document, written to a file and loaded. Every input loads or throws a KubeConfigError with a
// message: never another error, never a hang. FUZZ_SEED and FUZZ_CASE replay a failure (test/support/fuzz.ts).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dump, load } from 'js-yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { KubeConfigError, loadKubeConfig } from '../../src/runtime/clientcmd/index.js';
import { fuzz, mutateBytes, mutateText, mutateValues, summary, truncate, type Random } from '../support/fuzz.js';

const dir = mkdtempSync(join(tmpdir(), 'kc-fuzz-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
// Files the kubeconfig names, so that paths resolve to something readable.
for (const f of ['ca.crt', 'client.crt', 'client.key', 'token']) writeFileSync(join(dir, f), 'x');

const b64 = (s: string): string => Buffer.from(s).toString('base64');

const BASE = `apiVersion: v1
kind: Config
preferences: {}
clusters:
- name: prod
  cluster:
    server: https://prod.example:6443
    certificate-authority-data: ${b64('-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n')}
    tls-server-name: api.internal
    proxy-url: socks5://proxy:1080
    extensions:
    - name: client.authentication.k8s.io/exec
      extension: { audience: prod, nested: [1, { a: b }] }
- name: dev
  cluster: { server: "http://127.0.0.1:8080", certificate-authority: ca.crt }
- name: insecure
  cluster: { server: "https://10.0.0.1", insecure-skip-tls-verify: true }
users:
- name: admin
  user:
    client-certificate-data: ${b64('CERT')}
    client-key-data: ${b64('KEY')}
- name: files
  user: { client-certificate: client.crt, client-key: client.key, as: jane, as-groups: [devs], as-user-extra: { scopes: [a, b] } }
- name: plugin
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: ./bin/get-token
      args: [--cluster, prod]
      env: [{ name: REGION, value: eu }, { name: EMPTY }]
      installHint: install it
      provideClusterInfo: true
      interactiveMode: Never
- name: gcp
  user: { auth-provider: { name: gcp, config: { access-token: x } } }
- name: tok
  user: { tokenFile: token, username: "", password: "" }
contexts:
- name: prod
  context: { cluster: prod, user: plugin, namespace: kube-system }
- name: dev
  context: { cluster: dev, user: files }
- name: admin
  context: { cluster: insecure, user: admin }
- name: old
  context: { cluster: prod, user: gcp }
- name: tok
  context: { cluster: dev, user: tok }
current-context: prod
`;

/** YAML that the loader's parser treats specially, spliced into the file as donor text. */
const YAML_DONOR = `anchors: &a { x: [1, *a] }
merged: { <<: *a, y: !!binary aGVsbG8= }
? complex key
: !!str 2001-12-14
tabs:\t"a\\x"
block: |-
  text
%TAG ! tag:example.com,2000:
--- !!map
... `;

const CONTEXTS = ['prod', 'dev', 'admin', 'old', 'tok'];

interface KubeconfigCase {
  bytes: Buffer;
  context?: string;
}

/**
 * The document as YAML (block style at the top, flow style below, as kubeconfigs are written; deep values in block
 * style would indent quadratically), or as JSON (which is YAML) when it is too deep for the dumper.
 */
function serialize(r: Random, doc: unknown): string {
  try {
    return dump(doc, { noRefs: true, lineWidth: -1, flowLevel: r.chance(0.75) ? 3 : 0 });
  } catch {
    try {
      return JSON.stringify(doc) ?? '';
    } catch {
      return mutateText(r, BASE, YAML_DONOR);
    }
  }
}

function generate(r: Random): KubeconfigCase {
  const text = r.chance(0.5) ? serialize(r, mutateValues(r, load(BASE)).value) : mutateText(r, BASE, YAML_DONOR);
  // The current-context or, sometimes, one chosen by name (resolving a different cluster and user).
  return { bytes: mutateBytes(r, text), context: r.chance(0.4) ? r.pick(CONTEXTS) : undefined };
}

describe('fuzzing the kubeconfig loader', () => {
  const file = join(dir, 'config');

  it('loads the base kubeconfig in each of its contexts but the auth-provider one', () => {
    writeFileSync(file, BASE);
    for (const context of CONTEXTS.filter((c) => c !== 'old'))
      expect(loadKubeConfig({ kubeconfig: file, context, env: {} }).server).toMatch(/^https?:/);
    expect(() => loadKubeConfig({ kubeconfig: file, context: 'old', env: {} })).toThrow(KubeConfigError);
  });

  it('loads or refuses with a KubeConfigError every mutated kubeconfig, within bounds', async () => {
    const stats = await fuzz<KubeconfigCase>({
      name: 'kubeconfig loader',
      iterations: 5_000,
      budgetMs: 15_000,
      callLimitMs: 2_000,
      generate,
      check({ bytes, context }) {
        writeFileSync(file, bytes);
        try {
          const kc = loadKubeConfig({ kubeconfig: file, context, env: {} });
          expect(typeof kc.server).toBe('string');
        } catch (err) {
          if (!(err instanceof KubeConfigError)) throw err;
          expect(err.message).not.toBe('');
        }
      },
      describe: ({ bytes, context }) =>
        `context ${String(context)}, file ${JSON.stringify(truncate(bytes.toString('latin1'), 3_000))}`,
    });
    console.log(summary('kubeconfig loader', stats));
    expect(stats.cases).toBeGreaterThan(0);
  });
});
