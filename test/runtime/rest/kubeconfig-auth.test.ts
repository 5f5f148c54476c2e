// The credentials the transport sends for a KubeConfig, and how it keeps them current: token files (re-read after a
// minute and after a 401), exec credential plugins (cached until expirationTimestamp, run again after a 401), client
// certificate files. A clock is injected; nothing sleeps.
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Authenticator } from '../../../src/runtime/rest/auth.js';
import { KubeConfigError, type ExecConfig, type KubeConfig } from '../../../src/runtime/clientcmd/index.js';
import { ApiError, newClient, type RestClient } from '../../../src/runtime/rest/index.js';
import { FakeServer, json } from './fake-server.js';

const T0 = Date.parse('2030-01-01T00:00:00Z');
let now: number;
const clock = () => now;

let dir: string;
let server: FakeServer;
let base: KubeConfig;
let clients: RestClient[];
/** Bearer tokens the fake server accepts; others are answered 401. */
let valid: Set<string>;

const unauthorized = {
  kind: 'Status',
  apiVersion: 'v1',
  status: 'Failure',
  message: 'Unauthorized',
  reason: 'Unauthorized',
  code: 401,
};

beforeEach(async () => {
  now = T0;
  dir = mkdtempSync(join(tmpdir(), 'kc-auth-'));
  server = new FakeServer();
  base = await server.start();
  clients = [];
  valid = new Set();
  server.handler = (req, res) => {
    const auth = req.headers.authorization ?? '';
    if (auth.startsWith('Bearer ') && !valid.has(auth.slice(7))) return json(res, 401, unauthorized);
    json(res, 200, { kind: 'Status', status: 'Success' });
  };
});
afterEach(async () => {
  for (const c of clients) c.close();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A client for the fake server with `kc`'s credentials and the test clock. */
function client(
  kc: Omit<KubeConfig, 'server'>,
  opts: { isTerminal?: () => boolean; stderr?: NodeJS.WritableStream } = {},
): RestClient {
  const c = newClient({ ...kc, server: base.server }, { auth: { clock, ...opts } });
  clients.push(c);
  return c;
}

const get = (c: RestClient) => c.transport.requestJson({ method: 'GET', path: '/api/v1/namespaces' });
const sentAuth = () => server.requests.map((r) => r.headers.authorization);

describe('static credentials', () => {
  it('sends a bearer token, or basic auth, and impersonation headers', async () => {
    valid.add('t');
    await get(
      client({
        auth: {
          token: 't',
          impersonate: { user: 'alice', uid: '7', groups: ['a', 'b'], extra: { scopes: ['x', 'y'] } },
        },
      }),
    );
    await get(client({ auth: { username: 'me', password: 'pw' } }));
    const [first, second] = server.requests;
    expect(first?.headers).toMatchObject({
      authorization: 'Bearer t',
      'impersonate-user': 'alice',
      'impersonate-uid': '7',
      'impersonate-group': 'a, b',
      'impersonate-extra-scopes': 'x, y',
    });
    expect(second?.headers.authorization).toBe(`Basic ${Buffer.from('me:pw').toString('base64')}`);
  });

  it('refuses what client-go refuses: a CA with the insecure flag, a token with basic auth, a certificate without a key', () => {
    const refused = (kc: Omit<KubeConfig, 'server'>) => () => client({ ...kc, source: 'kubeconfig /k' });
    expect(refused({ tls: { insecureSkipTLSVerify: true, caData: 'CA' } })).toThrow(KubeConfigError);
    expect(refused({ tls: { insecureSkipTLSVerify: true, caFile: '/ca' } })).toThrow(
      'kubeconfig /k: insecureSkipTLSVerify is set together with a certificate authority',
    );
    expect(refused({ auth: { token: 't', username: 'u' } })).toThrow(
      'kubeconfig /k: username/password or bearer token may be set, but not both',
    );
    expect(refused({ tls: { certData: 'CERT' } })).toThrow(
      'kubeconfig /k: a client certificate needs both a certificate and a key',
    );
    expect(() => newClient({ server: 'localhost:6443' })).toThrow(
      'kubeconfig: server "localhost:6443" is not an http:// or https:// URL',
    );
  });
});

describe('token files', () => {
  it('reads the file again once a minute has passed, not before', async () => {
    const file = join(dir, 'token');
    writeFileSync(file, 'one\n');
    valid.add('one').add('two');
    const c = client({ auth: { tokenFile: file } });
    await get(c);
    writeFileSync(file, 'two');
    now = T0 + 59_000;
    await get(c);
    now = T0 + 60_000;
    await get(c);
    expect(sentAuth()).toEqual(['Bearer one', 'Bearer one', 'Bearer two']);
  });

  it('reads the file again after a 401 and sends the request once more', async () => {
    const file = join(dir, 'token');
    writeFileSync(file, 'old');
    valid.add('old');
    const c = client({ auth: { tokenFile: file } });
    await get(c);
    // The kubelet rotated the token and the server no longer accepts the old one; no time has passed.
    writeFileSync(file, 'new');
    valid = new Set(['new']);
    await get(c);
    expect(sentAuth()).toEqual(['Bearer old', 'Bearer old', 'Bearer new']);
  });

  it('returns a 401 that a fresh read does not cure after one retry', async () => {
    const file = join(dir, 'token');
    writeFileSync(file, 'bad');
    const e = await get(client({ auth: { tokenFile: file } })).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ApiError);
    expect((e as ApiError).code).toBe(401);
    expect(sentAuth()).toEqual(['Bearer bad', 'Bearer bad']);
  });

  it('keeps the last token when the file cannot be read again, and falls back to the static token at first', async () => {
    const file = join(dir, 'token');
    writeFileSync(file, 'one');
    valid.add('one').add('static');
    const c = client({ auth: { tokenFile: file } });
    await get(c);
    rmSync(file);
    now = T0 + 120_000;
    await get(c);
    await get(client({ auth: { tokenFile: join(dir, 'missing'), token: 'static' } }));
    expect(sentAuth()).toEqual(['Bearer one', 'Bearer one', 'Bearer static']);
    await expect(get(client({ auth: { tokenFile: join(dir, 'missing') } }))).rejects.toThrow(
      `cannot read the token file ${join(dir, 'missing')}`,
    );
  });
});

describe('exec credential plugins', () => {
  /** A shell script plugin: it counts its runs, records its input, and prints response.json. */
  function plugin(response: object | string, extra: Partial<ExecConfig> = {}): ExecConfig {
    const script = join(dir, 'plugin.sh');
    writeFileSync(
      script,
      [
        '#!/bin/sh',
        'echo run >> "$PLUGIN_DIR/calls"',
        'printf "%s" "$KUBERNETES_EXEC_INFO" > "$PLUGIN_DIR/info.json"',
        'readlink /proc/self/fd/0 > "$PLUGIN_DIR/stdin"',
        'printf "%s" "$GREETING" > "$PLUGIN_DIR/greeting"',
        'cat "$PLUGIN_DIR/response.json"',
        '',
      ].join('\n'),
    );
    chmodSync(script, 0o755);
    respond(response);
    return {
      apiVersion: 'client.authentication.k8s.io/v1',
      command: script,
      interactiveMode: 'Never',
      env: [{ name: 'PLUGIN_DIR', value: dir }],
      ...extra,
    };
  }
  const respond = (r: object | string) =>
    writeFileSync(join(dir, 'response.json'), typeof r === 'string' ? r : JSON.stringify(r));
  const credential = (status: object, apiVersion = 'client.authentication.k8s.io/v1') => ({
    apiVersion,
    kind: 'ExecCredential',
    status,
  });
  const calls = () => {
    try {
      return readFileSync(join(dir, 'calls'), 'utf8').split('\n').filter(Boolean).length;
    } catch {
      return 0;
    }
  };

  it('uses the token until its expirationTimestamp, then runs the plugin again', async () => {
    valid.add('tok-1').add('tok-2');
    const exec = plugin(credential({ token: 'tok-1', expirationTimestamp: new Date(T0 + 60_000).toISOString() }));
    const c = client({ auth: { exec } });
    await get(c);
    now = T0 + 60_000;
    await get(c);
    expect(calls()).toBe(1);
    respond(credential({ token: 'tok-2' }));
    now = T0 + 60_001;
    await get(c);
    // Without an expirationTimestamp the token is used until a 401.
    now = T0 + 3_600_000;
    await get(c);
    expect(calls()).toBe(2);
    expect(sentAuth()).toEqual(['Bearer tok-1', 'Bearer tok-1', 'Bearer tok-2', 'Bearer tok-2']);
  });

  it('runs the plugin again after a 401 and sends the request once more; concurrent requests share one run', async () => {
    valid.add('old');
    const c = client({ auth: { exec: plugin(credential({ token: 'old' })) } });
    await Promise.all([get(c), get(c), get(c)]);
    expect(calls()).toBe(1);
    valid = new Set(['new']);
    respond(credential({ token: 'new' }));
    await Promise.all([get(c), get(c)]);
    // Two requests were refused with the old token; the plugin ran once more for both.
    expect(calls()).toBe(2);
    expect(sentAuth().slice(3).sort()).toEqual(['Bearer new', 'Bearer new', 'Bearer old', 'Bearer old']);
  });

  it('returns the 401 when the fresh credential is refused too, after one retry', async () => {
    const c = client({ auth: { exec: plugin(credential({ token: 'never' })) } });
    await expect(get(c)).rejects.toMatchObject({ code: 401 });
    expect(calls()).toBe(2);
    expect(server.requests).toHaveLength(2);
  });

  it('tells the plugin about the cluster when provideClusterInfo is set, passes its env, and gives it no stdin unless interactive', async () => {
    valid.add('t');
    const exec = plugin(credential({ token: 't' }), {
      env: [
        { name: 'PLUGIN_DIR', value: dir },
        { name: 'GREETING', value: 'hello' },
      ],
      provideClusterInfo: true,
      clusterConfig: { audience: 'api' },
    });
    await get(client({ tls: { serverName: 'api.internal' }, auth: { exec } }));
    expect(JSON.parse(readFileSync(join(dir, 'info.json'), 'utf8'))).toEqual({
      apiVersion: 'client.authentication.k8s.io/v1',
      kind: 'ExecCredential',
      spec: {
        interactive: false,
        cluster: { server: base.server, 'tls-server-name': 'api.internal', config: { audience: 'api' } },
      },
    });
    expect(readFileSync(join(dir, 'greeting'), 'utf8')).toBe('hello');
    expect(readFileSync(join(dir, 'stdin'), 'utf8').trim()).toBe('/dev/null');

    await get(
      client(
        { auth: { exec: plugin(credential({ token: 't' }), { interactiveMode: 'IfAvailable' }) } },
        { isTerminal: () => true },
      ),
    );
    expect(JSON.parse(readFileSync(join(dir, 'info.json'), 'utf8')).spec).toEqual({ interactive: true });
  });

  it('sends no cluster without provideClusterInfo and speaks v1beta1', async () => {
    valid.add('t');
    const exec = plugin(credential({ token: 't' }, 'client.authentication.k8s.io/v1beta1'), {
      apiVersion: 'client.authentication.k8s.io/v1beta1',
      interactiveMode: 'IfAvailable',
    });
    await get(client({ auth: { exec } }, { isTerminal: () => false }));
    expect(JSON.parse(readFileSync(join(dir, 'info.json'), 'utf8'))).toEqual({
      apiVersion: 'client.authentication.k8s.io/v1beta1',
      kind: 'ExecCredential',
      spec: { interactive: false },
    });
  });

  it('is not run when the user has a token too, as client-go', async () => {
    valid.add('static');
    await get(client({ auth: { token: 'static', exec: plugin(credential({ token: 'plugin' })) } }));
    expect(calls()).toBe(0);
    expect(sentAuth()).toEqual(['Bearer static']);
  });

  it('explains a plugin that cannot be run, with its install hint, or that fails', async () => {
    const quiet = new Writable({ write: (_c, _e, cb) => cb() });
    const missing: ExecConfig = {
      apiVersion: 'client.authentication.k8s.io/v1',
      command: join(dir, 'no-such-plugin'),
      interactiveMode: 'Never',
      installHint: 'install it with: brew install plugin',
    };
    await expect(get(client({ source: 'kubeconfig /k', auth: { exec: missing } }))).rejects.toThrow(
      `kubeconfig /k: exec: executable ${join(dir, 'no-such-plugin')} not found\n\ninstall it with: brew install plugin`,
    );
    const notExecutable = join(dir, 'not-executable');
    writeFileSync(notExecutable, '#!/bin/sh\n');
    await expect(get(client({ auth: { exec: { ...missing, command: notExecutable } } }))).rejects.toThrow(
      `exec: executable ${notExecutable} cannot be run (permission denied)\n\ninstall it with`,
    );
    const failing = join(dir, 'failing.sh');
    writeFileSync(failing, '#!/bin/sh\necho "no credentials for you" >&2\nexit 3\n');
    chmodSync(failing, 0o755);
    await expect(get(client({ auth: { exec: { ...missing, command: failing } } }, { stderr: quiet }))).rejects.toThrow(
      `exec: executable ${failing} failed with exit code 3: no credentials for you`,
    );
    expect(server.requests).toHaveLength(0);
  });

  it('refuses answers that are not a usable ExecCredential', async () => {
    const refused = async (response: object | string, message: string, extra: Partial<ExecConfig> = {}) => {
      await expect(get(client({ auth: { exec: plugin(response, extra) } }))).rejects.toThrow(message);
    };
    await refused('not json', 'printed no ExecCredential');
    await refused(
      credential({ token: 't' }, 'client.authentication.k8s.io/v1beta1'),
      'exec plugin is configured to use API version client.authentication.k8s.io/v1, plugin returned version client.authentication.k8s.io/v1beta1',
    );
    await refused(
      { apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential' },
      "exec plugin didn't return a status field",
    );
    await refused(credential({}), "exec plugin didn't return a token or cert/key pair");
    await refused(
      credential({ clientCertificateData: 'CERT' }),
      'exec plugin returned only certificate or key, not both',
    );
    await refused(
      credential({ token: 't', expirationTimestamp: 'soon' }),
      'exec plugin returned an expirationTimestamp that is not a time: soon',
    );
    await expect(
      get(
        client(
          { auth: { exec: plugin(credential({ token: 't' }), { interactiveMode: 'Always' }) } },
          { isTerminal: () => false },
        ),
      ),
    ).rejects.toThrow('exec plugin cannot support interactive mode: standard input is not a terminal');
    expect(server.requests).toHaveLength(0);
  });
});

describe('TLS material', () => {
  it('reads client certificate files again after 5 minutes, keeping the same TLS object while nothing changed', async () => {
    const cert = join(dir, 'cert.pem');
    const key = join(dir, 'key.pem');
    writeFileSync(cert, 'CERT 1');
    writeFileSync(key, 'KEY 1');
    writeFileSync(join(dir, 'ca.crt'), 'CA');
    const auth = new Authenticator(
      { server: 'https://x', tls: { caFile: join(dir, 'ca.crt'), certFile: cert, keyFile: key, serverName: 'api' } },
      { clock },
    );
    const first = await auth.current();
    expect(first.tls).toEqual({
      ca: 'CA',
      cert: 'CERT 1',
      key: 'KEY 1',
      rejectUnauthorized: undefined,
      servername: 'api',
    });
    now = T0 + 300_000;
    expect((await auth.current()).tls).toBe(first.tls);
    writeFileSync(cert, 'CERT 2');
    writeFileSync(key, 'KEY 2');
    writeFileSync(join(dir, 'ca.crt'), 'CA 2');
    expect((await auth.current()).tls).toBe(first.tls);
    now = T0 + 600_000;
    // The CA is read once, as client-go; the client certificate is read again.
    expect((await auth.current()).tls).toEqual({
      ca: 'CA',
      cert: 'CERT 2',
      key: 'KEY 2',
      rejectUnauthorized: undefined,
      servername: 'api',
    });
  });

  it('takes the client certificate from an exec plugin, and turns verification off only when asked', async () => {
    const script = join(dir, 'cert-plugin.sh');
    const cred = {
      apiVersion: 'client.authentication.k8s.io/v1',
      kind: 'ExecCredential',
      status: { clientCertificateData: 'CERT', clientKeyData: 'KEY' },
    };
    writeFileSync(script, `#!/bin/sh\necho '${JSON.stringify(cred)}'\n`);
    chmodSync(script, 0o755);
    const auth = new Authenticator(
      {
        server: 'https://x',
        tls: { insecureSkipTLSVerify: true },
        auth: { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: script, interactiveMode: 'Never' } },
      },
      { clock },
    );
    const m = await auth.current();
    expect(m.tls).toEqual({
      ca: undefined,
      cert: 'CERT',
      key: 'KEY',
      rejectUnauthorized: false,
      servername: undefined,
    });
    expect(m.headers).toEqual({});
  });
});
