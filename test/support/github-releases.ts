/**
 * A stand-in for GitHub's kubebuilder release downloads, so that the real `kubebuilder alpha update` runs where only
 * the Go module proxy is reachable. kubebuilder fetches each release's binary from
 * https://github.com/kubernetes-sigs/kubebuilder/releases/download/<version>/kubebuilder_<os>_<arch> with Go's default
 * HTTP client, which honours HTTPS_PROXY and SSL_CERT_FILE. So this is an HTTP proxy on 127.0.0.1: a CONNECT to
 * github.com:443 is answered here, with a certificate made for the run (Go's own generate_cert.go) that only the child
 * processes given `env` trust, and serves the binaries it is given (built from the module proxy). A CONNECT to any
 * other host is refused and recorded, so that a run asks nothing else of the network unseen.
 */
import { execFileSync } from 'node:child_process';
import { createReadStream, readFileSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import { TLSSocket } from 'node:tls';
import { tempDir } from './files.js';
import { goEnv } from './kubebuilder.js';

/** A running stand-in. */
export interface ReleaseDownloads {
  /** The environment that sends a Go program's HTTPS through the stand-in and trusts its certificate. */
  env: NodeJS.ProcessEnv;
  /** `METHOD path` of each request to github.com, in order (HEAD to check a release, GET to download it). */
  requests: string[];
  /** The host:port of each CONNECT refused, in order. */
  refused: string[];
  close(): Promise<void>;
}

/**
 * Starts the stand-in, serving `binaries` (a release tag such as v4.15.0 -> the path of that kubebuilder binary) for
 * this machine's os and architecture. Any other release is a 404, as GitHub answers for one that does not exist.
 */
export async function startReleaseDownloads(binaries: Readonly<Record<string, string>>): Promise<ReleaseDownloads> {
  const work = tempDir('ks-github-releases-');
  const { key, cert, certFile } = makeCertificate(work.path);
  const suffix = goPlatform();
  const requests: string[] = [];
  const refused: string[] = [];

  const github = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0]!;
    requests.push(`${req.method} ${path}`);
    const match = /^\/kubernetes-sigs\/kubebuilder\/releases\/download\/([^/]+)\/kubebuilder_(.+)$/.exec(path);
    const binary = match && match[2] === suffix ? binaries[match[1]!] : undefined;
    if (binary === undefined) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': statSync(binary).size });
    if (req.method === 'HEAD') return void res.end();
    createReadStream(binary).pipe(res);
  });

  const sockets = new Set<Socket>();
  const track = (socket: Socket): void => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const proxy: Server = createServer((_req, res) => res.writeHead(405).end('CONNECT only'));
  proxy.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    track(client);
    if (req.url !== 'github.com:443') {
      refused.push(req.url ?? '');
      client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
      return;
    }
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length > 0) client.unshift(head);
    const tls = new TLSSocket(client, { isServer: true, key, cert });
    track(tls);
    github.emit('connection', tls);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  return {
    env: {
      HTTPS_PROXY: url,
      https_proxy: url,
      NO_PROXY: '',
      no_proxy: '',
      SSL_CERT_FILE: certFile,
    },
    requests,
    refused,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
      github.close();
      work.remove();
    },
  };
}

/** kubebuilder's name for this platform in its release assets: <GOOS>_<GOARCH>. */
function goPlatform(): string {
  const os = { linux: 'linux', darwin: 'darwin', win32: 'windows' }[process.platform as string] ?? process.platform;
  const arch = { x64: 'amd64', arm64: 'arm64' }[process.arch as string] ?? process.arch;
  return `${os}_${arch}`;
}

/**
 * A self-signed certificate for github.com, from Go's crypto/tls/generate_cert.go (Go is here: it builds kubebuilder).
 * Its file is the only root the child processes trust, as SSL_CERT_FILE.
 */
function makeCertificate(dir: string): { key: Buffer; cert: Buffer; certFile: string } {
  const goroot = execFileSync('go', ['env', 'GOROOT'], { env: goEnv(), encoding: 'utf8' }).trim();
  const generator = join(goroot, 'src', 'crypto', 'tls', 'generate_cert.go');
  execFileSync('go', ['run', generator, '--host', 'github.com', '--ca', '--duration', '24h'], {
    cwd: dir,
    env: { ...goEnv(), GOFLAGS: '' },
    stdio: 'pipe',
  });
  const certFile = join(dir, 'cert.pem');
  return { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(certFile), certFile };
}
