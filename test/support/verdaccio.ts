/**
 * A real npm registry on 127.0.0.1 for the tests: verdaccio, installed once into ~/.cache/kubescaffold/verdaccio and
 * run on Node 22 (it asks for 22 or newer). It serves what the tests publish (kubescaffold and @kubescaffold/*, never
 * proxied, so an unrelated package of that name elsewhere cannot stand in) and proxies every other package to the
 * registry npm is configured with.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../src/envtest/controlplane/ports.js';
import { eventually } from './eventually.js';
import { minutes } from './commands.js';

/** The verdaccio release the tests run: pinned, so its cached install stays the one the tests were written against. */
export const VERDACCIO_VERSION = '6.10.4';

const cacheRoot = (): string =>
  join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'kubescaffold', 'verdaccio');

/** verdaccio's executable script, installed from the npm registry into the cache on first use. */
export function verdaccioScript(): string {
  const dir = join(cacheRoot(), VERDACCIO_VERSION);
  const script = join(dir, 'node_modules', 'verdaccio', 'bin', 'verdaccio');
  if (existsSync(script)) return script;
  mkdirSync(cacheRoot(), { recursive: true });
  const staging = mkdtempSync(join(cacheRoot(), '.install-'));
  try {
    // verdaccio 5 and 6 depend on the dist-tag node-fetch@cjs, which not every registry resolves: 2.7.0 is that tag.
    writeFileSync(
      join(staging, 'package.json'),
      JSON.stringify({
        name: 'kubescaffold-test-registry',
        private: true,
        dependencies: { verdaccio: VERDACCIO_VERSION },
        overrides: { 'node-fetch': '2.7.0' },
      }),
    );
    const npm = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'], {
      cwd: staging,
      encoding: 'utf8',
      timeout: minutes(5),
    });
    if (npm.status !== 0)
      throw new Error(`could not install verdaccio ${VERDACCIO_VERSION} for the tests:\n${npm.stdout}${npm.stderr}`);
    // Another run may have finished first: its copy is as good.
    if (!existsSync(script)) renameSync(staging, dir);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return script;
}

/** A running registry: its URL, an npm user config that may publish to it, and a way to stop it. */
export interface LocalRegistry {
  /** http://127.0.0.1:<port>/ */
  url: string;
  /** An .npmrc holding the registry and a publishing token for it, for npm_config_userconfig. */
  publisherConfig: string;
  /** Its output so far, for failure messages. */
  output(): string;
  stop(): Promise<void>;
}

/** Starts verdaccio on `node`, with its storage under `dir`, proxying unpublished packages to `uplink`. */
export async function startLocalRegistry(options: {
  dir: string;
  uplink: string;
  node: string;
}): Promise<LocalRegistry> {
  const script = verdaccioScript();
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  mkdirSync(join(options.dir, 'storage'), { recursive: true });
  const config = join(options.dir, 'config.yaml');
  const local = { access: '$all', publish: '$authenticated' };
  writeFileSync(
    config,
    JSON.stringify({
      storage: join(options.dir, 'storage'),
      auth: { htpasswd: { file: join(options.dir, 'htpasswd') } },
      // cache: false keeps the proxied tarballs out of the storage: npm's own cache has them. maxage: a package's
      // metadata, once fetched, is served from the storage for the rest of the run; with the default 2m, every later
      // install (npm ci in the Dockerfile's stage, a lockfile without resolved URLs) asked the uplink for each of its
      // ~400 packages again, and a slow uplink stalled that install for minutes.
      uplinks: { upstream: { url: options.uplink, cache: false, timeout: '60s', maxage: '1h' } },
      packages: {
        kubescaffold: local,
        '@kubescaffold/*': local,
        '**': { access: '$all', proxy: 'upstream' },
      },
      log: { type: 'stdout', format: 'pretty', level: 'warn' },
    }),
  );
  let text = '';
  const proc: ChildProcess = spawn(options.node, [script, '--config', config, '--listen', `127.0.0.1:${port}`], {
    cwd: options.dir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  proc.stdout!.on('data', (d: Buffer) => (text += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (text += d.toString()));
  const exited = once(proc, 'exit');
  const stop = async (): Promise<void> => {
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill('SIGTERM');
      // It stops within a second or two; one that does not is killed rather than left behind.
      const kill = setTimeout(() => proc.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(kill);
    }
  };
  try {
    await eventually(
      async () => {
        if (proc.exitCode !== null) throw new Error(`verdaccio exited ${proc.exitCode}:\n${text}`);
        return (await fetch(`${url}-/ping`).catch(() => undefined))?.ok === true;
      },
      { what: `verdaccio to answer on ${url}`, timeoutMs: minutes(1), intervalMs: 100, diagnose: () => text },
    );
    // A user, as `npm adduser` makes one: its token may publish.
    const res = await fetch(`${url}-/user/org.couchdb.user:publisher`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'publisher', password: 'publisher-password' }),
    });
    const { token } = (await res.json()) as { token?: string };
    if (!res.ok || token === undefined) throw new Error(`verdaccio did not create a user (${res.status}):\n${text}`);
    const publisherConfig = join(options.dir, 'publisher.npmrc');
    writeFileSync(publisherConfig, `registry=${url}\n//127.0.0.1:${port}/:_authToken=${token}\n`);
    return { url, publisherConfig, output: () => text, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
