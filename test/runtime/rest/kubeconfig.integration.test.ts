// Every way of authenticating a KubeConfig against a real kube-apiserver (envtest), checked with a SelfSubjectReview:
// the admin's client certificate (data and files), a service account's bearer token from the TokenRequest API, a token
// file, an exec plugin, the in-cluster configuration, and the way through an HTTP CONNECT or SOCKS5 proxy.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestEnvironment } from '../../../src/envtest/index.js';
import { eventually } from '../../support/eventually.js';
import { currentNamespace, loadKubeConfig, type KubeConfig } from '../../../src/runtime/clientcmd/index.js';
import {
  Namespaces,
  ServiceAccounts,
  isUnauthorized,
  newClient,
  type RestClient,
  type TransportOptions,
} from '../../../src/runtime/rest/index.js';

const NS = 'kubeconfig-it';

let env: TestEnvironment;
let admin: RestClient;
let dir: string;
const open: RestClient[] = [];

beforeAll(async () => {
  env = await TestEnvironment.start();
  admin = newClient(env.kubeConfig);
  await admin.create(Namespaces, { metadata: { name: NS } });
  for (const name of ['alpha', 'beta', 'gamma'])
    await admin.create(ServiceAccounts, { metadata: { name, namespace: NS } });
  dir = mkdtempSync(join(tmpdir(), 'kubeconfig-it-'));
});
afterAll(async () => {
  for (const c of open) c.close();
  admin?.close();
  await env?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A service account token from the TokenRequest API. */
async function tokenFor(sa: string): Promise<{ token: string; expirationTimestamp: string }> {
  const tr = await admin.transport.requestJson<{ status: { token: string; expirationTimestamp: string } }>({
    method: 'POST',
    path: `/api/v1/namespaces/${NS}/serviceaccounts/${sa}/token`,
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } },
  });
  return tr.status;
}

/** A client that the suite closes at the end. */
function client(kc: KubeConfig, opts?: TransportOptions): RestClient {
  const c = newClient(kc, opts);
  open.push(c);
  return c;
}

/** Who the server takes the client for: a SelfSubjectReview, which every authenticated user may create. */
async function whoami(c: RestClient): Promise<string> {
  const review = await c.transport.requestJson<{ status: { userInfo: { username: string } } }>({
    method: 'POST',
    path: '/apis/authentication.k8s.io/v1/selfsubjectreviews',
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
  });
  return review.status.userInfo.username;
}

const serviceAccount = (sa: string) => `system:serviceaccount:${NS}:${sa}`;
/** The server and CA of the environment, with no credentials. */
const anonymous = (): KubeConfig => ({ server: env.server, tls: { caData: env.kubeConfig.tls!.caData! } });

function write(name: string, text: string, mode?: number): string {
  const file = join(dir, name);
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, text);
  if (mode !== undefined) chmodSync(file, mode);
  return file;
}

describe('client certificates', () => {
  it('authenticates envtest admin with the embedded certificate and key', async () => {
    expect(await whoami(client(env.kubeConfig))).toBe('admin');
  });

  it('authenticates with certificate, key and CA files named relative to the kubeconfig', async () => {
    const tls = env.kubeConfig.tls!;
    write('certs/ca.crt', tls.caData!);
    write('certs/admin.crt', tls.certData!);
    write('certs/admin.key', tls.keyData!);
    const file = write(
      'certs.kubeconfig',
      `apiVersion: v1
kind: Config
clusters: [{ name: envtest, cluster: { server: "${env.server}", certificate-authority: certs/ca.crt } }]
users: [{ name: admin, user: { client-certificate: certs/admin.crt, client-key: certs/admin.key } }]
contexts: [{ name: files, context: { cluster: envtest, user: admin } }]
current-context: files
`,
    );
    const kc = loadKubeConfig({ kubeconfig: file, env: {} });
    expect(kc.tls?.certFile).toBe(join(dir, 'certs', 'admin.crt'));
    expect(await whoami(client(kc))).toBe('admin');
  });
});

describe('bearer tokens', () => {
  it('authenticates as the service account whose token the TokenRequest API issued', async () => {
    const { token } = await tokenFor('alpha');
    expect(await whoami(client({ ...anonymous(), auth: { token } }))).toBe(serviceAccount('alpha'));
  });

  it('reads a token file again after a minute', async () => {
    let now = Date.now();
    const file = write('rotating-token', (await tokenFor('alpha')).token);
    const c = client({ ...anonymous(), auth: { tokenFile: file } }, { auth: { clock: () => now } });
    expect(await whoami(c)).toBe(serviceAccount('alpha'));
    writeFileSync(file, (await tokenFor('beta')).token);
    expect(await whoami(c)).toBe(serviceAccount('alpha'));
    now += 61_000;
    expect(await whoami(c)).toBe(serviceAccount('beta'));
  });

  it('reads a token file again when the server stops accepting its token', async () => {
    const gamma = (await tokenFor('gamma')).token;
    const file = write('revoked-token', gamma);
    const c = client({ ...anonymous(), auth: { tokenFile: file } }, { auth: { clock: () => 0 } });
    expect(await whoami(c)).toBe(serviceAccount('gamma'));
    // Deleting the service account revokes its tokens; wait until the server refuses gamma's.
    writeFileSync(file, (await tokenFor('beta')).token);
    await admin.delete(ServiceAccounts, { namespace: NS, name: 'gamma' });
    // kube-apiserver caches a token's authentication for up to 10 s: the bound is three times that.
    const tokenCacheMs = 10_000;
    const probe = client({ ...anonymous(), auth: { token: gamma } });
    await eventually(
      () =>
        whoami(probe).then(
          () => false,
          (e: unknown) => isUnauthorized(e),
        ),
      {
        what: "the server to refuse the deleted service account's token",
        timeoutMs: 3 * tokenCacheMs,
        intervalMs: 200,
      },
    );
    // The clock stands still: only the 401 makes the transport read the file again.
    expect(await whoami(c)).toBe(serviceAccount('beta'));
  });
});

describe('exec plugins', () => {
  it('runs the plugin once until the credential expires, then again', async () => {
    const { token, expirationTimestamp } = await tokenFor('alpha');
    const credential = {
      apiVersion: 'client.authentication.k8s.io/v1',
      kind: 'ExecCredential',
      status: { token, expirationTimestamp },
    };
    write('plugin/credential.json', JSON.stringify(credential));
    const calls = join(dir, 'plugin', 'calls');
    const script = write(
      'plugin/get-token',
      `#!/bin/sh\necho run >> "${calls}"\ncat "${join(dir, 'plugin', 'credential.json')}"\n`,
      0o755,
    );
    const file = write(
      'exec.kubeconfig',
      `apiVersion: v1
kind: Config
clusters: [{ name: envtest, cluster: { server: "${env.server}", certificate-authority-data: ${Buffer.from(env.kubeConfig.tls!.caData!).toString('base64')} } }]
users: [{ name: plugin, user: { exec: { apiVersion: client.authentication.k8s.io/v1, command: ./plugin/get-token, interactiveMode: Never } } }]
contexts: [{ name: exec, context: { cluster: envtest, user: plugin } }]
current-context: exec
`,
    );
    const kc = loadKubeConfig({ kubeconfig: file, env: {} });
    expect(kc.auth?.exec?.command).toBe(script);
    let now = Date.now();
    const c = client(kc, { auth: { clock: () => now } });
    const runs = () => readFileSync(calls, 'utf8').split('\n').filter(Boolean).length;
    expect(await whoami(c)).toBe(serviceAccount('alpha'));
    expect(await whoami(c)).toBe(serviceAccount('alpha'));
    expect(runs()).toBe(1);
    now = Date.parse(expirationTimestamp) + 1000;
    expect(await whoami(c)).toBe(serviceAccount('alpha'));
    expect(runs()).toBe(2);
  });
});

describe('in-cluster configuration', () => {
  it('reads the service account files and KUBERNETES_SERVICE_HOST/PORT', async () => {
    const sa = join(dir, 'serviceaccount');
    write('serviceaccount/token', (await tokenFor('beta')).token);
    write('serviceaccount/ca.crt', env.kubeConfig.tls!.caData!);
    write('serviceaccount/namespace', NS);
    const url = new URL(env.server);
    const kc = loadKubeConfig({
      env: {
        KUBERNETES_SERVICE_HOST: url.hostname,
        KUBERNETES_SERVICE_PORT: url.port,
        KUBESCAFFOLD_SERVICE_ACCOUNT_DIR: sa,
        HOME: join(dir, 'no-home'),
      },
    });
    expect(kc.server).toBe(env.server);
    expect(currentNamespace(kc)).toBe(NS);
    expect(await whoami(client(kc))).toBe(serviceAccount('beta'));
  });
});

describe('proxies', () => {
  /** A server that records what it was asked to connect to, and relays the bytes. */
  async function relay(
    handle: (
      socket: net.Socket,
      seen: string[],
      connect: (host: string, port: number, onOpen: (up: net.Socket) => void) => void,
    ) => void,
  ) {
    const seen: string[] = [];
    const sockets = new Set<net.Socket>();
    const track = (s: net.Socket) => (
      sockets.add(s),
      s.on('close', () => sockets.delete(s)),
      s.on('error', () => s.destroy())
    );
    const connect = (host: string, port: number, onOpen: (up: net.Socket) => void) => {
      const up = net.connect(port, host, () => onOpen(up));
      track(up);
    };
    const server = net.createServer((socket) => {
      track(socket);
      handle(socket, seen, connect);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return {
      seen,
      port: (server.address() as AddressInfo).port,
      close: () => {
        for (const s of sockets) s.destroy();
        return new Promise<void>((r) => server.close(() => r()));
      },
    };
  }

  it('reaches the server through an HTTP CONNECT proxy', async () => {
    const seen: string[] = [];
    const sockets = new Set<net.Socket>();
    const proxy = http.createServer((_req, res) => res.writeHead(405).end());
    proxy.on('connect', (req: http.IncomingMessage, socket: net.Socket, head: Buffer) => {
      seen.push(`${req.method} ${req.url}`);
      sockets.add(socket);
      const [host, port] = (req.url ?? '').split(':');
      const up = net.connect(Number(port), host, () => {
        socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        up.write(head);
        up.pipe(socket).pipe(up);
      });
      sockets.add(up);
      for (const s of [socket, up]) s.on('error', () => (socket.destroy(), up.destroy()));
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    try {
      const proxyURL = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
      const c = client({ ...env.kubeConfig, proxyURL });
      expect(await whoami(c)).toBe('admin');
      c.close();
      expect(seen).toEqual([`CONNECT ${new URL(env.server).host}`]);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => proxy.close(() => r()));
    }
  });

  it('reaches the server through a SOCKS5 proxy, which resolves the host name', async () => {
    // Just enough SOCKS5 (RFC 1928): no authentication, CONNECT to an IPv4 address or a domain name.
    const socks = await relay((socket, seen, connect) => {
      socket.once('data', () => {
        socket.write(Buffer.from([5, 0]));
        socket.once('data', (req: Buffer) => {
          let host: string;
          let at: number;
          if (req[3] === 1) {
            host = [...req.subarray(4, 8)].join('.');
            at = 8;
          } else {
            const len = req[4]!;
            host = req.subarray(5, 5 + len).toString();
            at = 5 + len;
          }
          const port = req.readUInt16BE(at);
          seen.push(`${host}:${port}`);
          connect(host === 'localhost' ? '127.0.0.1' : host, port, (up) => {
            socket.write(Buffer.from([5, 0, 0, 1, 0, 0, 0, 0, 0, 0]));
            up.pipe(socket).pipe(up);
          });
        });
      });
    });
    try {
      // "localhost" is sent to the proxy as a name (socks5 in client-go's sense); the serving certificate covers it.
      const server = env.server.replace('127.0.0.1', 'localhost');
      const c = client({ ...env.kubeConfig, server, proxyURL: `socks5://127.0.0.1:${socks.port}` });
      expect(await whoami(c)).toBe('admin');
      c.close();
      expect(socks.seen).toEqual([`localhost:${new URL(env.server).port}`]);
    } finally {
      await socks.close();
    }
  });
});
