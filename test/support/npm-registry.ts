/**
 * A stand-in npm registry on 127.0.0.1, for tests that fetch a release of kubescaffold as npm fetches it. It serves
 * the packed tarballs it is given (packument and tarball), and every other package from a package-lock.json: each
 * version the lockfile holds, with the lockfile's dependencies and integrity. npm then takes those tarballs from its
 * cache by integrity (`npm ci` installed the lockfile's packages), so nothing but the stand-in is asked for metadata.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

/** A running stand-in registry. */
export interface StandInRegistry {
  /** Its URL, for --registry or npm_config_registry. */
  url: string;
  /** The packument paths asked for, in order (e.g. /kubescaffold), to show what npm fetched from it. */
  requests: string[];
  close(): Promise<void>;
}

type VersionDoc = Record<string, unknown> & { version: string; dist: { tarball: string; integrity?: string } };

/** Starts the registry: `tarballs` are served as published releases; other names come from `lockfile`. */
export async function startRegistry(tarballs: readonly string[], lockfile: string): Promise<StandInRegistry> {
  const requests: string[] = [];
  const packed = new Map<string, { manifest: Record<string, unknown>; bytes: Buffer }>();
  for (const path of tarballs) {
    const bytes = readFileSync(path);
    const manifest = packageJsonOf(bytes);
    packed.set(`${String(manifest.name)}@${String(manifest.version)}`, { manifest, bytes });
  }
  const locked = lockedVersions(lockfile);

  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent((req.url ?? '/').split('?')[0] ?? '/');
    const tarball = /^\/-\/tarballs\/(.+)@([^@/]+)\.tgz$/.exec(path);
    if (tarball) {
      const entry = packed.get(`${tarball[1]}@${tarball[2]}`);
      if (!entry) return void res.writeHead(404).end();
      return void res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(entry.bytes);
    }
    requests.push(path);
    const name = path.slice(1);
    const versions: Record<string, VersionDoc> = { ...(locked.get(name) ?? {}) };
    for (const { manifest, bytes } of packed.values()) {
      if (manifest.name !== name) continue;
      const version = String(manifest.version);
      versions[version] = {
        ...manifest,
        version,
        dist: {
          tarball: `${base()}/-/tarballs/${name}@${version}.tgz`,
          integrity: `sha512-${createHash('sha512').update(bytes).digest('base64')}`,
          shasum: createHash('sha1').update(bytes).digest('hex'),
        },
      } as VersionDoc;
    }
    const names = Object.keys(versions);
    if (names.length === 0)
      return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Not found"}');
    const latest = names.sort(compareVersions).at(-1)!;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ name, 'dist-tags': { latest }, versions }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = (): string => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${base()}/`,
    requests,
    close: () => new Promise((resolve, reject) => server.close((err) => (err ? reject(err) : resolve()))),
  };
}

/** package/package.json of a packed tarball, read from its tar stream (ustar, as npm pack writes it). */
function packageJsonOf(tgz: Buffer): Record<string, unknown> {
  const tar = gunzipSync(tgz);
  for (let at = 0; at + 512 <= tar.length;) {
    const name = tar
      .subarray(at, at + 100)
      .toString('utf8')
      .replace(/\0.*$/s, '');
    if (name === '') break;
    const size = parseInt(
      tar
        .subarray(at + 124, at + 136)
        .toString('utf8')
        .replace(/\0.*$/s, '')
        .trim(),
      8,
    );
    if (name === 'package/package.json')
      return JSON.parse(tar.subarray(at + 512, at + 512 + size).toString('utf8')) as Record<string, unknown>;
    at += 512 + Math.ceil(size / 512) * 512;
  }
  throw new Error('no package/package.json in the tarball');
}

const MANIFEST_FIELDS = [
  'dependencies',
  'optionalDependencies',
  'peerDependencies',
  'peerDependenciesMeta',
  'bin',
  'engines',
  'os',
  'cpu',
  'libc',
  'license',
  'hasInstallScript',
] as const;

/** Every registry package of a lockfile, by name, with the versions it holds as packument entries. */
function lockedVersions(lockfile: string): Map<string, Record<string, VersionDoc>> {
  const lock = JSON.parse(readFileSync(lockfile, 'utf8')) as { packages: Record<string, Record<string, unknown>> };
  const out = new Map<string, Record<string, VersionDoc>>();
  for (const [path, entry] of Object.entries(lock.packages)) {
    const at = path.lastIndexOf('node_modules/');
    if (at < 0 || entry.link || typeof entry.integrity !== 'string' || typeof entry.version !== 'string') continue;
    const name = path.slice(at + 'node_modules/'.length);
    // npm finds the tarball in its cache by integrity; the URL (npmjs's, where `npm ci` got it) is asked only on a miss.
    const tarball =
      typeof entry.resolved === 'string'
        ? entry.resolved
        : `https://registry.npmjs.org/${name}/-/${name.split('/').at(-1)}-${entry.version}.tgz`;
    const doc: VersionDoc = { name, version: entry.version, dist: { tarball, integrity: entry.integrity } };
    for (const field of MANIFEST_FIELDS) if (entry[field] !== undefined) doc[field] = entry[field];
    const versions = out.get(name) ?? {};
    versions[entry.version] = doc;
    out.set(name, versions);
  }
  return out;
}

/** Orders plain x.y.z versions (what the lockfile and the fixtures hold); a pre-release sorts before its release. */
function compareVersions(a: string, b: string): number {
  const parse = (v: string): number[] => v.split(/[.-]/).map((p) => (/^\d+$/.test(p) ? Number(p) : -1));
  const [pa, pb] = [parse(a), parse(b)];
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? Infinity) - (pb[i] ?? Infinity);
    if (d !== 0) return d;
  }
  return 0;
}
