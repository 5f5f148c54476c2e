/**
 * A local envtest release mirror for the download tests: an index in envtest-releases.yaml format and
 * tar.gz archives made from copies of binaries, served over HTTP with switchable misbehaviour, plus an
 * HTTP CONNECT proxy. Everything listens on 127.0.0.1 and is closed by the test.
 */
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { create } from 'tar';
import { stringify } from 'yaml';

/** Builds envtest-v<version>-<os>-<arch>.tar.gz holding controller-tools/envtest/<name> for each file. */
export async function makeArchive(dest: string, files: Record<string, string | Buffer>, mode = 0o755): Promise<Buffer> {
  const staging = await mkdtemp(join(tmpdir(), 'envtest-archive-'));
  try {
    const dir = join(staging, 'controller-tools', 'envtest');
    await mkdir(dir, { recursive: true });
    for (const [name, from] of Object.entries(files)) {
      // A string is a file to copy (a cached binary); a Buffer is the content itself.
      if (typeof from === 'string') await copyFile(from, join(dir, name));
      else await writeFile(join(dir, name), from, { mode });
    }
    await create({ gzip: { level: 1 }, file: dest, cwd: staging, portable: true }, ['controller-tools']);
    return await readFile(dest);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

export function sha512(data: Buffer): string {
  return createHash('sha512').update(data).digest('hex');
}

/** How the mirror answers one path. */
export type Behaviour =
  | { kind: 'serve'; body: Buffer; contentType?: string }
  /** Sends the headers with the full Content-Length, then `bytes` of the body, then closes the connection. */
  | { kind: 'truncate'; body: Buffer; bytes: number }
  /** Sends the headers and `bytes` of the body, then nothing more until the test ends. */
  | { kind: 'stall'; body: Buffer; bytes: number }
  /** Accepts the request and never answers. */
  | { kind: 'hang' }
  | { kind: 'status'; status: number };

export interface ArchiveEntry {
  version: string;
  os: string;
  arch: string;
  /** The archive's bytes (or a decoy: anything, never downloaded). */
  body: Buffer;
  /** The hash the index lists; default the body's sha512. */
  hash?: string;
}

export class Mirror {
  readonly requests: string[] = [];
  private readonly routes = new Map<string, Behaviour>();
  private readonly open = new Set<ServerResponse | Socket>();

  private constructor(
    private readonly server: Server,
    readonly baseUrl: string,
  ) {}

  /** Starts a mirror on 127.0.0.1 (HTTPS when `tls` is given). */
  static async start(tls?: { certPem: string; keyPem: string }): Promise<Mirror> {
    const server = tls ? createHttpsServer({ cert: tls.certPem, key: tls.keyPem }) : createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    const mirror = new Mirror(server, `${tls ? 'https' : 'http'}://127.0.0.1:${port}`);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => mirror.handle(req, res));
    server.on('connection', (s: Socket) => {
      mirror.open.add(s);
      s.on('close', () => mirror.open.delete(s));
    });
    return mirror;
  }

  get indexUrl(): string {
    return `${this.baseUrl}/envtest-releases.yaml`;
  }

  archiveUrl(name: string): string {
    return `${this.baseUrl}/archives/${name}`;
  }

  /** Publishes `entries` in the index (at indexUrl) and serves each archive at archiveUrl(name). */
  publish(entries: ArchiveEntry[]): void {
    const releases: Record<string, Record<string, { hash: string; selfLink: string }>> = {};
    for (const e of entries) {
      const name = `envtest-v${e.version}-${e.os}-${e.arch}.tar.gz`;
      (releases[`v${e.version}`] ??= {})[name] = { hash: e.hash ?? sha512(e.body), selfLink: this.archiveUrl(name) };
      this.routes.set(`/archives/${name}`, { kind: 'serve', body: e.body });
    }
    this.routes.set('/envtest-releases.yaml', {
      kind: 'serve',
      body: Buffer.from(stringify({ releases })),
      contentType: 'application/yaml',
    });
  }

  /** Changes how `path` (e.g. "/archives/envtest-v1.37.1-linux-amd64.tar.gz") is answered. */
  set(path: string, behaviour: Behaviour): void {
    this.routes.set(path, behaviour);
  }

  count(path: string): number {
    return this.requests.filter((p) => p === path).length;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    this.requests.push(path);
    const b = this.routes.get(path) ?? { kind: 'status', status: 404 };
    switch (b.kind) {
      case 'serve':
        res.writeHead(200, { 'content-length': b.body.length, 'content-type': b.contentType ?? 'application/gzip' });
        res.end(b.body);
        return;
      case 'truncate':
        res.writeHead(200, { 'content-length': b.body.length });
        res.write(b.body.subarray(0, b.bytes), () => res.socket?.destroy());
        return;
      case 'stall':
        res.writeHead(200, { 'content-length': b.body.length });
        res.write(b.body.subarray(0, b.bytes));
        this.open.add(res);
        return;
      case 'hang':
        this.open.add(res);
        return;
      case 'status':
        res.writeHead(b.status);
        res.end();
    }
  }

  async close(): Promise<void> {
    for (const r of this.open) r.destroy();
    this.server.close();
    this.server.closeAllConnections?.();
    await once(this.server, 'close');
  }
}

/** An HTTP proxy that only tunnels (CONNECT), recording each target "host:port". */
export class ConnectProxy {
  readonly targets: string[] = [];
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<ConnectProxy> {
    const server = createServer((_req, res) => {
      res.writeHead(405);
      res.end('CONNECT only');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const proxy = new ConnectProxy(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
      const target = req.url ?? '';
      proxy.targets.push(target);
      const [host, port] = [
        target.slice(0, target.lastIndexOf(':')),
        Number(target.slice(target.lastIndexOf(':') + 1)),
      ];
      const upstream = connect(port, host, () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      for (const s of [client, upstream]) {
        proxy.sockets.add(s);
        s.on('close', () => proxy.sockets.delete(s));
        s.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
    });
    return proxy;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    this.server.close();
    await once(this.server, 'close');
  }
}

/** Stand-ins for kube-apiserver and etcd: scripts that answer --version like the real ones, for tests that never start them. */
export function fakeBinaries(version: string): Record<string, Buffer> {
  return {
    'kube-apiserver': Buffer.from(`#!/bin/sh\necho "Kubernetes v${version}"\n`),
    etcd: Buffer.from('#!/bin/sh\necho "etcd Version: 3.6.12"\n'),
  };
}

/** Writes fakeBinaries(version) into `dir` (created), executable. */
export async function writeFakeBinaries(dir: string, version: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const [name, body] of Object.entries(fakeBinaries(version)))
    await writeFile(join(dir, name), body, { mode: 0o755 });
}
