// loadKubeConfig, inClusterConfig and kubeConfigToYaml: client-go's and controller-runtime's loading rules, with the
// environment injected so that the test process's own KUBECONFIG, HOME and service account never matter.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  KubeConfigError,
  currentNamespace,
  kubeConfigFromYaml,
  inClusterConfig,
  kubeConfigToYaml,
  loadKubeConfig,
  type Environment,
  type KubeConfig,
} from '../../../src/runtime/clientcmd/index.js';

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

/** A one-context kubeconfig whose cluster and user fields are the given YAML flow mappings. */
const single = (cluster: string, user: string, extra = '') => `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: ${cluster}
users:
- name: u
  user: ${user}
contexts:
- name: dev
  context: { cluster: c, user: u${extra} }
current-context: dev
`;

let dir: string;
/** An environment with nothing set but HOME, which has no ~/.kube/config until a test writes one. */
let env: Record<string, string | undefined>;

function write(name: string, text: string): string {
  const file = join(dir, name);
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, text);
  return file;
}

function serviceAccount(
  name = 'sa',
  files: { token?: string; ca?: string; namespace?: string } = { token: 'sa-token', ca: 'CA', namespace: 'pods' },
): string {
  const sa = join(dir, name);
  mkdirSync(sa, { recursive: true });
  if (files.token !== undefined) writeFileSync(join(sa, 'token'), files.token);
  if (files.ca !== undefined) writeFileSync(join(sa, 'ca.crt'), files.ca);
  if (files.namespace !== undefined) writeFileSync(join(sa, 'namespace'), files.namespace);
  return sa;
}

const inCluster = (sa: string, extra: Environment = {}): Environment => ({
  ...env,
  KUBERNETES_SERVICE_HOST: '10.0.0.1',
  KUBERNETES_SERVICE_PORT: '443',
  KUBESCAFFOLD_SERVICE_ACCOUNT_DIR: sa,
  ...extra,
});

function loadError(f: () => unknown): KubeConfigError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(KubeConfigError);
    return e as KubeConfigError;
  }
  throw new Error('expected a KubeConfigError');
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'kc-'));
  env = { HOME: join(dir, 'home') };
  mkdirSync(join(dir, 'home'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('loading order', () => {
  it('reads $KUBECONFIG and its current context', () => {
    const kc = loadKubeConfig({ env: { ...env, KUBECONFIG: write('config', config) } });
    expect(kc.server).toBe('https://a.example:6443');
    expect(kc.contextName).toBe('ctx-a');
    expect(kc.source).toBe(`kubeconfig ${join(dir, 'config')}`);
    expect(currentNamespace(kc)).toBe('default');
  });

  it('prefers the explicit file to $KUBECONFIG, the service account and ~/.kube/config', () => {
    const explicit = write('explicit', config.replace('https://a.example', 'https://explicit.example'));
    write('home/.kube/config', config.replace('https://a.example', 'https://home.example'));
    const kc = loadKubeConfig({
      kubeconfig: explicit,
      env: inCluster(serviceAccount(), { KUBECONFIG: write('listed', config) }),
    });
    expect(kc.server).toBe('https://explicit.example:6443');
  });

  it('refuses an explicit file that does not exist, without looking further', () => {
    write('home/.kube/config', config);
    const e = loadError(() => loadKubeConfig({ kubeconfig: join(dir, 'missing'), env }));
    expect(e.message).toBe(`kubeconfig ${join(dir, 'missing')} does not exist`);
    expect(e.reason).toBe('Invalid');
  });

  it('uses $KUBECONFIG rather than the service account when both are there, as controller-runtime', () => {
    const kc = loadKubeConfig({ env: inCluster(serviceAccount(), { KUBECONFIG: write('config', config) }) });
    expect(kc.server).toBe('https://a.example:6443');
  });

  it('uses the service account when KUBECONFIG is unset, before ~/.kube/config', () => {
    write('home/.kube/config', config);
    const kc = loadKubeConfig({ env: inCluster(serviceAccount()) });
    expect(kc.server).toBe('https://10.0.0.1:443');
    expect(kc.auth?.tokenFile).toBe(join(dir, 'sa', 'token'));
  });

  it('falls back to ~/.kube/config when the service account token cannot be read', () => {
    write('home/.kube/config', config);
    const kc = loadKubeConfig({ env: inCluster(serviceAccount('sa', { ca: 'CA' })) });
    expect(kc.server).toBe('https://a.example:6443');
    expect(kc.source).toBe(`kubeconfig ${join(dir, 'home', '.kube', 'config')}`);
  });

  it('reads ~/.kube/config when nothing else is set', () => {
    write('home/.kube/config', config);
    expect(loadKubeConfig({ env }).server).toBe('https://a.example:6443');
  });

  it('finds nothing rather than falling back to localhost:8080', () => {
    const e = loadError(() => loadKubeConfig({ env }));
    expect(e.reason).toBe('NoConfiguration');
    expect(e.message).toMatch(
      /^no Kubernetes configuration found: set KUBECONFIG, create ~\/.kube\/config, or run inside a cluster$/,
    );
  });

  it('says why the service account was not used when nothing else is found', () => {
    const e = loadError(() => loadKubeConfig({ env: inCluster(serviceAccount('sa', {})) }));
    expect(e.reason).toBe('NoConfiguration');
    expect(e.message).toContain(
      `KUBERNETES_SERVICE_HOST is set, but the service account token ${join(dir, 'sa', 'token')} cannot be read`,
    );
  });

  it('does not fall back to ~/.kube/config when no file of $KUBECONFIG exists', () => {
    write('home/.kube/config', config);
    const e = loadError(() =>
      loadKubeConfig({ env: { ...env, KUBECONFIG: [join(dir, 'x'), join(dir, 'y')].join(delimiter) } }),
    );
    expect(e.reason).toBe('NoConfiguration');
    expect(e.message).toBe(
      `no Kubernetes configuration found: none of the files in $KUBECONFIG exists (${join(dir, 'x')}, ${join(dir, 'y')})`,
    );
  });
});

describe('$KUBECONFIG merging', () => {
  const first = `clusters:
- name: shared
  cluster: { server: https://first.example, tls-server-name: first }
users:
- name: u
  user: { token: first-token }
contexts:
- name: one
  context: { cluster: shared, user: u, namespace: first-ns }
`;
  const second = `clusters:
- name: shared
  cluster: { server: https://second.example, proxy-url: http://proxy.example:3128 }
- name: own
  cluster: { server: https://own.example }
users:
- name: u
  user: { token: second-token }
contexts:
- name: one
  context: { cluster: own, user: u }
- name: two
  context: { cluster: shared, user: u }
current-context: two
`;
  const third = `current-context: one
`;

  it('takes each name from the first file that defines it, whole, and the first non-empty current-context', () => {
    const list = [write('1', first), write('2', second), write('3', third)].join(delimiter);
    const kc = loadKubeConfig({ env: { ...env, KUBECONFIG: list } });
    // current-context: file 1 has none, file 2's "two" wins over file 3's "one".
    expect(kc.contextName).toBe('two');
    // Cluster "shared" is file 1's: its proxy-url from file 2 is not merged in.
    expect(kc).toMatchObject({
      server: 'https://first.example',
      tls: { serverName: 'first' },
      auth: { token: 'first-token' },
    });
    expect(kc.proxyURL).toBeUndefined();
    // Context "one" is file 1's too.
    const one = loadKubeConfig({ env: { ...env, KUBECONFIG: list }, context: 'one' });
    expect(one).toMatchObject({ server: 'https://first.example', namespace: 'first-ns' });
    expect(kc.source).toBe(
      `kubeconfig ${join(dir, '1')}, ${join(dir, '2')}, ${join(dir, '3')} (merged from $KUBECONFIG)`,
    );
  });

  it('skips missing files and empty entries, and reads a file listed twice once', () => {
    const a = write('a', config);
    const list = ['', join(dir, 'missing'), a, '', a].join(delimiter);
    const kc = loadKubeConfig({ env: { ...env, KUBECONFIG: list } });
    expect(kc.server).toBe('https://a.example:6443');
    // One file remains once duplicates and missing entries are dropped.
    expect(kc.source).toBe(`kubeconfig ${a}`);
  });

  it('refuses a name defined twice in one file, as client-go', () => {
    const text = config.replace('- name: b\n', '- name: a\n');
    const file = write('config', text);
    expect(() => loadKubeConfig({ kubeconfig: file, env })).toThrow(`kubeconfig ${file}: cluster "a" is defined twice`);
  });
});

describe('paths', () => {
  it('resolves relative paths against the directory of the file that defines them', () => {
    write('certs/ca.crt', 'CA');
    write('users/cert.pem', 'CERT');
    write('users/key.pem', 'KEY');
    write('users/token', 'TOKEN');
    const clusters = write(
      'clusters/config',
      `clusters:
- name: c
  cluster: { server: https://c.example, certificate-authority: ../certs/ca.crt }
contexts:
- name: dev
  context: { cluster: c, user: u }
current-context: dev
`,
    );
    const users = write(
      'users/config',
      `users:
- name: u
  user:
    client-certificate: cert.pem
    client-key: ./key.pem
    tokenFile: token
    exec: { apiVersion: client.authentication.k8s.io/v1, command: bin/plugin, interactiveMode: Never }
`,
    );
    const kc = loadKubeConfig({ env: { ...env, KUBECONFIG: [clusters, users].join(delimiter) } });
    expect(kc.tls).toEqual({
      caFile: join(dir, 'certs', 'ca.crt'),
      certFile: join(dir, 'users', 'cert.pem'),
      keyFile: join(dir, 'users', 'key.pem'),
    });
    expect(kc.auth?.tokenFile).toBe(join(dir, 'users', 'token'));
    expect(kc.auth?.exec?.command).toBe(join(dir, 'users', 'bin', 'plugin'));
  });

  it('leaves an exec command without a path separator to be found on $PATH, and absolute paths as they are', () => {
    const file = write(
      'config',
      single(
        '{ server: https://c.example, certificate-authority: /etc/ca.crt }',
        '{ exec: { apiVersion: client.authentication.k8s.io/v1, command: aws, args: [eks, get-token], interactiveMode: Never } }',
      ),
    );
    writeFileSync(join(dir, 'ca.crt'), 'CA');
    const e = loadError(() => loadKubeConfig({ kubeconfig: file, env }));
    expect(e.message).toContain('certificate-authority /etc/ca.crt cannot be read');
    writeFileSync(
      file,
      single(
        `{ server: https://c.example, certificate-authority: ${join(dir, 'ca.crt')} }`,
        '{ exec: { apiVersion: client.authentication.k8s.io/v1, command: aws, args: [eks, get-token], interactiveMode: Never } }',
      ),
    );
    const kc = loadKubeConfig({ kubeconfig: file, env });
    expect(kc.auth?.exec).toEqual({
      apiVersion: 'client.authentication.k8s.io/v1',
      command: 'aws',
      args: ['eks', 'get-token'],
      interactiveMode: 'Never',
    });
    expect(kc.tls?.caFile).toBe(join(dir, 'ca.crt'));
  });
});

describe('contexts', () => {
  it('switches to a named context and its namespace', () => {
    const kc = loadKubeConfig({ kubeconfig: write('config', config), context: 'ctx-b', env });
    expect(kc.server).toBe('https://b.example:6443');
    expect(kc.contextName).toBe('ctx-b');
    expect(currentNamespace(kc)).toBe('team-b');
  });

  it('names the known contexts when the requested one is missing', () => {
    const file = write('config', config);
    expect(() => loadKubeConfig({ kubeconfig: file, context: 'nope', env })).toThrow(
      `kubeconfig ${file}: context "nope" not found (contexts: ctx-a, ctx-b)`,
    );
  });

  it('refuses a file without current-context unless a context is chosen', () => {
    const file = write('config', config.replace('current-context: ctx-a\n', ''));
    expect(() => loadKubeConfig({ kubeconfig: file, env })).toThrow(
      `kubeconfig ${file}: no context chosen: current-context is not set; choose one of the contexts (ctx-a, ctx-b)`,
    );
    expect(loadKubeConfig({ kubeconfig: file, context: 'ctx-b', env }).server).toBe('https://b.example:6443');
  });

  it('ignores the context option in-cluster, as controller-runtime', () => {
    expect(loadKubeConfig({ context: 'other', env: inCluster(serviceAccount()) }).server).toBe('https://10.0.0.1:443');
  });
});

describe('validation', () => {
  const pem = Buffer.from('PEM').toString('base64');
  const v1exec = '{ apiVersion: client.authentication.k8s.io/v1, command: plugin, interactiveMode: Never }';
  // Each case: the cluster and user of a one-context file, and what the error must say after "kubeconfig FILE: ".
  const cases: Array<[string, string, string, string, string?]> = [
    [
      'a context naming a user the file does not define',
      '{ server: https://c.example }',
      '{ token: t }',
      'context "dev" names user "bob", which the file does not define (users: u)',
      'bob',
    ],
    [
      'a context naming a cluster the file does not define',
      '{ server: https://c.example }',
      '{ token: t }',
      'context "dev" names cluster "nope", which the file does not define (clusters: c)',
      'cluster:nope',
    ],
    [
      'a cluster without a server',
      '{ certificate-authority-data: ' + pem + ' }',
      '{ token: t }',
      'context "dev": cluster "c" has no server (field server)',
    ],
    [
      'a server that is not a URL',
      '{ server: c.example:6443 }',
      '{ token: t }',
      'context "dev": cluster "c" has server "c.example:6443", which is not an http:// or https:// URL',
    ],
    [
      'a proxy-url of another scheme',
      '{ server: https://c.example, proxy-url: "ftp://p:21" }',
      '{ token: t }',
      'context "dev": cluster "c" has proxy-url "ftp://p:21" with the unsupported scheme "ftp"; use http, https or socks5',
    ],
    [
      'a CA file and CA data',
      `{ server: https://c.example, certificate-authority: ca.crt, certificate-authority-data: ${pem} }`,
      '{ token: t }',
      'context "dev": cluster "c" sets both certificate-authority and certificate-authority-data; keep one',
    ],
    [
      'a CA with insecure-skip-tls-verify',
      `{ server: https://c.example, insecure-skip-tls-verify: true, certificate-authority-data: ${pem} }`,
      '{ token: t }',
      'context "dev": cluster "c" sets insecure-skip-tls-verify together with certificate-authority-data; a CA cannot be used with the insecure flag, remove one',
    ],
    [
      'a CA file that cannot be read',
      '{ server: https://c.example, certificate-authority: missing.crt }',
      '{ token: t }',
      'context "dev": cluster "c": certificate-authority DIR/missing.crt cannot be read',
    ],
    [
      'data that is not base64',
      '{ server: https://c.example, certificate-authority-data: "not base64!" }',
      '{ token: t }',
      'context "dev": cluster "c": certificate-authority-data is not valid base64',
    ],
    [
      'a field of the wrong type',
      '{ server: https://c.example, insecure-skip-tls-verify: "yes" }',
      '{ token: t }',
      'context "dev": cluster "c": insecure-skip-tls-verify is not true or false',
    ],
    [
      'a token and basic auth',
      '{ server: https://c.example }',
      '{ token: t, username: me, password: pw }',
      'context "dev": user "u" has more than one authentication method (token, basicAuth); only one is allowed',
    ],
    [
      'a token file and basic auth',
      '{ server: https://c.example }',
      '{ tokenFile: ca.crt, username: me }',
      'context "dev": user "u" has more than one authentication method (token, basicAuth); only one is allowed',
    ],
    [
      'a client certificate without a key',
      '{ server: https://c.example }',
      `{ client-certificate-data: ${pem} }`,
      'context "dev": user "u" has a client certificate but no key: set client-key or client-key-data',
    ],
    [
      'a certificate file and certificate data',
      '{ server: https://c.example }',
      `{ client-certificate: ca.crt, client-certificate-data: ${pem}, client-key-data: ${pem} }`,
      'context "dev": user "u" sets both client-certificate and client-certificate-data; keep one',
    ],
    [
      'a key file and key data',
      '{ server: https://c.example }',
      `{ client-certificate-data: ${pem}, client-key: ca.crt, client-key-data: ${pem} }`,
      'context "dev": user "u" sets both client-key and client-key-data; keep one',
    ],
    [
      'a key file that cannot be read',
      '{ server: https://c.example }',
      `{ client-certificate-data: ${pem}, client-key: nokey.pem }`,
      'context "dev": user "u": client-key DIR/nokey.pem cannot be read',
    ],
    [
      'a token file that cannot be read',
      '{ server: https://c.example }',
      '{ tokenFile: notoken }',
      'context "dev": user "u": tokenFile DIR/notoken cannot be read',
    ],
    [
      'an auth-provider',
      '{ server: https://c.example }',
      '{ auth-provider: { name: gcp, config: {} } }',
      'context "dev": user "u" uses auth-provider "gcp", which kubescaffold does not support',
    ],
    [
      'an exec plugin without a command',
      '{ server: https://c.example }',
      '{ exec: { apiVersion: client.authentication.k8s.io/v1, interactiveMode: Never } }',
      'context "dev": user "u" has an exec plugin without a command (field exec.command)',
    ],
    [
      'an exec plugin without an apiVersion',
      '{ server: https://c.example }',
      '{ exec: { command: plugin, interactiveMode: Never } }',
      'context "dev": user "u" has an exec plugin without an apiVersion (field exec.apiVersion',
    ],
    [
      'an exec plugin of an unknown apiVersion',
      '{ server: https://c.example }',
      '{ exec: { command: plugin, apiVersion: client.authentication.k8s.io/v1alpha1, interactiveMode: Never } }',
      'context "dev": user "u" has an exec plugin with the unsupported apiVersion "client.authentication.k8s.io/v1alpha1"',
    ],
    [
      'a v1 exec plugin without interactiveMode',
      '{ server: https://c.example }',
      '{ exec: { command: plugin, apiVersion: client.authentication.k8s.io/v1 } }',
      'context "dev": user "u" has an exec plugin without interactiveMode, which client.authentication.k8s.io/v1 requires',
    ],
    [
      'an invalid interactiveMode',
      '{ server: https://c.example }',
      '{ exec: { command: plugin, apiVersion: client.authentication.k8s.io/v1, interactiveMode: Sometimes } }',
      'context "dev": user "u" has an exec plugin with the invalid interactiveMode "Sometimes"',
    ],
    [
      'an exec env variable without a name',
      '{ server: https://c.example }',
      '{ exec: { command: plugin, apiVersion: client.authentication.k8s.io/v1, interactiveMode: Never, env: [{ value: x }] } }',
      'context "dev": user "u" has exec.env[0] without a name',
    ],
    // Found by fuzzing (test/fuzz/kubeconfig-loader.test.ts): String() of this mapping threw a TypeError.
    [
      'an exec env value that is a mapping',
      '{ server: https://c.example }',
      '{ exec: { command: plugin, apiVersion: client.authentication.k8s.io/v1, interactiveMode: Never, env: [{ name: A, value: { toString: 1 } }] } }',
      'context "dev": user "u" has exec.env[0] (A) whose value is not a string',
    ],
    [
      'impersonated groups without a user',
      '{ server: https://c.example }',
      '{ token: t, as-groups: [admins] }',
      'context "dev": user "u" sets as-uid, as-groups or as-user-extra without as',
    ],
    [
      'a namespace that is not a DNS label',
      '{ server: https://c.example }',
      v1exec,
      'context "dev" has namespace "Team_B", which is not a valid namespace name',
      'namespace:Team_B',
    ],
  ];

  it.each(cases)('refuses %s, naming the file, the context and the field', (_what, cluster, user, message, tweak) => {
    writeFileSync(join(dir, 'ca.crt'), 'CA');
    let text = single(cluster, user);
    if (tweak === 'bob') text = text.replace('user: u }', 'user: bob }');
    else if (tweak?.startsWith('cluster:')) text = text.replace('cluster: c,', `cluster: ${tweak.slice(8)},`);
    else if (tweak?.startsWith('namespace:'))
      text = text.replace('user: u }', `user: u, namespace: ${tweak.slice(10)} }`);
    const file = write('config', text);
    const e = loadError(() => loadKubeConfig({ kubeconfig: file, env }));
    expect(e.reason).toBe('Invalid');
    expect(e.message).toContain(`kubeconfig ${file}: ${message.replace('DIR', dir)}`);
  });

  it('lists every problem of the chosen context at once', () => {
    const file = write(
      'config',
      single('{ server: https://c.example, proxy-url: "ftp://p" }', '{ token: t, password: p }'),
    );
    const lines = loadError(() => loadKubeConfig({ kubeconfig: file, env })).message.split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain('proxy-url');
    expect(lines[1]).toContain('more than one authentication method');
  });

  it('checks only the chosen context, as client-go', () => {
    const file = write(
      'config',
      config.replace(
        'user: { token: t }',
        'user: { token: t }\n- name: broken\n  user: { auth-provider: { name: oidc } }',
      ),
    );
    expect(loadKubeConfig({ kubeconfig: file, env }).auth).toEqual({ token: 't' });
  });

  it('refuses a file that is not YAML, or not a kubeconfig, or empty', () => {
    const bad = write('bad', 'this: [is not\n');
    expect(() => loadKubeConfig({ kubeconfig: bad, env })).toThrow(new RegExp(`^kubeconfig ${bad}: not valid YAML: `));
    const list = write('list', '- a\n- b\n');
    expect(() => loadKubeConfig({ kubeconfig: list, env })).toThrow(
      `kubeconfig ${list}: not a kubeconfig (expected a mapping with clusters, users and contexts)`,
    );
    const empty = write('empty', '');
    expect(() => loadKubeConfig({ kubeconfig: empty, env })).toThrow(
      `kubeconfig ${empty}: the configuration is empty: it defines no clusters, users or contexts`,
    );
  });

  it('names the file that defines the broken entry when files are merged', () => {
    const users = write('users', 'users:\n- name: u\n  user: { client-certificate-data: UEVN }\n');
    const rest = write('rest', config.replace(/users:\n- name: u\n {2}user: \{ token: t \}\n/, ''));
    const e = loadError(() => loadKubeConfig({ env: { ...env, KUBECONFIG: [rest, users].join(delimiter) } }));
    expect(e.message).toBe(
      `kubeconfig ${users}: context "ctx-a": user "u" has a client certificate but no key: set client-key or client-key-data`,
    );
    const missing = loadError(() =>
      loadKubeConfig({ env: { ...env, KUBECONFIG: [rest, write('none', 'users: []\n')].join(delimiter) } }),
    );
    expect(missing.message).toBe(
      `kubeconfig ${rest}: context "ctx-a" names user "u", which none of the files defines (users: none)`,
    );
  });
});

describe('what the configuration holds', () => {
  it('decodes data fields to PEM text and keeps TLS, auth, proxy and impersonation settings', () => {
    const b64 = (s: string) => Buffer.from(s).toString('base64');
    const file = write(
      'config',
      single(
        `{ server: https://c.example/prefix, certificate-authority-data: ${b64('CA PEM')}, tls-server-name: api.internal, proxy-url: "socks5://p:1080", extensions: [{ name: client.authentication.k8s.io/exec, extension: { audience: x } }] }`,
        `{ client-certificate-data: ${b64('CERT PEM')}, client-key-data: ${b64('KEY PEM')}, username: me, password: pw, as: alice, as-groups: [devs], as-uid: "42", as-user-extra: { scopes: [read] } }`,
        ', namespace: team',
      ),
    );
    expect(loadKubeConfig({ kubeconfig: file, env })).toEqual({
      server: 'https://c.example/prefix',
      contextName: 'dev',
      namespace: 'team',
      tls: { caData: 'CA PEM', serverName: 'api.internal', certData: 'CERT PEM', keyData: 'KEY PEM' },
      auth: {
        username: 'me',
        password: 'pw',
        impersonate: { user: 'alice', uid: '42', groups: ['devs'], extra: { scopes: ['read'] } },
      },
      proxyURL: 'socks5://p:1080',
      source: `kubeconfig ${file}`,
    });
  });

  it('passes the cluster exec extension to the plugin and defaults v1beta1 plugins to IfAvailable', () => {
    const file = write(
      'config',
      single(
        '{ server: https://c.example, extensions: [{ name: client.authentication.k8s.io/exec, extension: { audience: x } }] }',
        '{ exec: { apiVersion: client.authentication.k8s.io/v1beta1, command: plugin, env: [{ name: A, value: b }], provideClusterInfo: true, installHint: "install \\u001b[1mplugin" } }',
      ),
    );
    expect(loadKubeConfig({ kubeconfig: file, env }).auth?.exec).toEqual({
      apiVersion: 'client.authentication.k8s.io/v1beta1',
      command: 'plugin',
      env: [{ name: 'A', value: 'b' }],
      installHint: 'install U+001B[1mplugin',
      interactiveMode: 'IfAvailable',
      provideClusterInfo: true,
      clusterConfig: { audience: 'x' },
    });
  });

  it('sends no credentials to an http:// server, as client-go', () => {
    const file = write('config', single('{ server: http://c.example:8080 }', '{ token: t }'));
    const kc = loadKubeConfig({ kubeconfig: file, env });
    expect(kc.server).toBe('http://c.example:8080');
    expect(kc.auth).toBeUndefined();
  });
});

describe('inClusterConfig', () => {
  it('reads the service account directory that KUBESCAFFOLD_SERVICE_ACCOUNT_DIR names', () => {
    const sa = serviceAccount('sa', { token: 'tok\n', ca: 'CA', namespace: 'pods\n' });
    const kc = inClusterConfig({ env: inCluster(sa) });
    expect(kc).toEqual({
      server: 'https://10.0.0.1:443',
      namespace: 'pods',
      tls: { caFile: join(sa, 'ca.crt') },
      auth: { tokenFile: join(sa, 'token') },
      source: `in-cluster service account ${sa}`,
    });
    expect(currentNamespace(kc)).toBe('pods');
  });

  it('brackets an IPv6 service host, prefers POD_NAMESPACE, and answers "default" without a namespace', () => {
    const sa = serviceAccount('sa', { token: 'tok' });
    const kc = inClusterConfig({
      env: inCluster(sa, { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '6443' }),
    });
    expect(kc.server).toBe('https://[fd00::1]:6443');
    // No ca.crt: the system CAs, as client-go (which logs and goes on).
    expect(kc.tls).toEqual({});
    expect(currentNamespace(kc)).toBe('default');
    expect(
      inClusterConfig({ env: inCluster(serviceAccount('sa2'), { POD_NAMESPACE: 'from-downward-api' }) }).namespace,
    ).toBe('from-downward-api');
  });

  it('refuses to run outside a cluster or without a token', () => {
    const outside = loadError(() => inClusterConfig({ env }));
    expect(outside.message).toBe(
      'not running in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set',
    );
    const sa = serviceAccount('sa', { ca: 'CA' });
    expect(() => inClusterConfig({ env: inCluster(sa) })).toThrow(
      `the service account token ${join(sa, 'token')} cannot be read`,
    );
  });
});

describe('kubeConfigToYaml', () => {
  it('writes one context that loads back to the same configuration', () => {
    write('ca.crt', 'CA');
    write('token', 'T');
    const kc: KubeConfig = {
      server: 'https://c.example:6443',
      contextName: 'chosen',
      namespace: 'team',
      tls: { caFile: join(dir, 'ca.crt'), certData: 'CERT PEM', keyData: 'KEY PEM', serverName: 'api' },
      auth: {
        tokenFile: join(dir, 'token'),
        impersonate: { user: 'alice', groups: ['devs'] },
      },
      proxyURL: 'http://proxy:3128',
      disableCompression: true,
    };
    const file = write('out', kubeConfigToYaml(kc));
    expect(kubeConfigToYaml(kc)).toContain('disable-compression: true');
    expect(loadKubeConfig({ kubeconfig: file, env })).toEqual({ ...kc, source: `kubeconfig ${file}` });
  });

  it('round-trips an exec plugin, basic auth and insecure-skip-tls-verify, and makes relative paths absolute', () => {
    const kc: KubeConfig = {
      server: 'https://c.example',
      tls: { insecureSkipTLSVerify: true },
      auth: {
        exec: {
          apiVersion: 'client.authentication.k8s.io/v1',
          command: 'plugin',
          args: ['--x'],
          env: [{ name: 'A', value: '1' }],
          interactiveMode: 'Never',
          provideClusterInfo: true,
          installHint: 'get it',
          clusterConfig: { k: 'v' },
        },
      },
    };
    const file = write('out', kubeConfigToYaml(kc));
    expect(loadKubeConfig({ kubeconfig: file, env })).toEqual({
      ...kc,
      contextName: 'default',
      source: `kubeconfig ${file}`,
    });
    const basic = write(
      'basic',
      kubeConfigToYaml({ server: 'https://c.example', contextName: 'b', auth: { username: 'me', password: 'pw' } }),
    );
    expect(loadKubeConfig({ kubeconfig: basic, env }).auth).toEqual({ username: 'me', password: 'pw' });
    const relative = kubeConfigToYaml({
      server: 'https://c.example',
      tls: { caFile: 'certs/ca.crt' },
      auth: {
        exec: { apiVersion: 'client.authentication.k8s.io/v1', command: './bin/plugin', interactiveMode: 'Never' },
      },
    });
    expect(relative).toContain(`certificate-authority: ${join(process.cwd(), 'certs', 'ca.crt')}`);
    expect(relative).toContain(`command: ${join(process.cwd(), 'bin', 'plugin')}`);
  });
});

describe('kubeConfigFromYaml', () => {
  const source = 'in Secret fleet/east (key kubeconfig)';

  it('reads a kubeconfig given as text, its current-context or the one asked for', () => {
    expect(kubeConfigFromYaml(config, { source })).toMatchObject({
      server: 'https://a.example:6443',
      auth: { token: 't' },
    });
    expect(kubeConfigFromYaml(config, { source, context: 'ctx-b' })).toMatchObject({ namespace: 'team-b' });
    expect(() => kubeConfigFromYaml('clusters: [', { source })).toThrow(`kubeconfig ${source}: not valid YAML`);
  });

  it('refuses local files and exec plugins unless allowed, naming the source and the field', () => {
    const withFiles = single(
      '{ server: https://c.example, certificate-authority: /etc/ca.crt }',
      '{ tokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token }',
    );
    const problems = (() => {
      try {
        kubeConfigFromYaml(withFiles, { source });
        return '';
      } catch (err) {
        return (err as Error).message;
      }
    })();
    expect(problems).toContain(
      `kubeconfig ${source}: context "dev": cluster "c": certificate-authority names the local file /etc/ca.crt, which this kubeconfig may not: embed its content instead (certificate-authority-data)`,
    );
    expect(problems).toContain(
      'tokenFile names the local file /var/run/secrets/kubernetes.io/serviceaccount/token, which this kubeconfig may not: embed its content instead (token)',
    );
    const exec = single(
      '{ server: https://c.example }',
      '{ exec: { apiVersion: client.authentication.k8s.io/v1, command: aws, interactiveMode: Never } }',
    );
    expect(() => kubeConfigFromYaml(exec, { source })).toThrow(
      'has an exec plugin (aws), which this kubeconfig may not run',
    );
    expect(kubeConfigFromYaml(exec, { source, allowLocalReferences: true }).auth?.exec?.command).toBe('aws');
  });
});
