/**
 * Builds kube-apiserver and etcd from the Go module proxy into the cache, the way
 * reference/envtest.md §2-3 describes. Everything happens in a temporary directory next to the
 * cache entry; the finished, verified directory is renamed into place, so an interrupted build never
 * leaves a half-filled version directory behind.
 */
import { createWriteStream, readFileSync, type WriteStream } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fsProbe } from './find.js';
import { apiserverWrapperGoMod, etcdWrapperGoMod, goDirective, parseKubernetesGoMod } from './gomod.js';
import { acquireLock } from './lock.js';
import { BuildLogFollower, builderLogOf, PROGRESS_PREFIX } from './build-follow.js';
import { ETCD, KUBE_APISERVER } from './paths.js';
import { runLogged } from './go-command.js';
import {
  DEFAULT_ETCD_VERSION,
  goSatisfies,
  isExact,
  parseApiserverVersionOutput,
  parseEtcdVersionOutput,
  parseVersion,
} from '../versions.js';

/**
 * Options of {@link buildBinaries}: the Kubernetes (and etcd) version to build from source, the cache root, and
 * progress reporting.
 */
export interface BuildOptions {
  /** Exact Kubernetes version, e.g. "1.37.1". */
  kubernetesVersion: string;
  /** etcd version to build; default DEFAULT_ETCD_VERSION. */
  etcdVersion?: string;
  /** The cache root; the result lands in <cacheRoot>/<kubernetesVersion>. */
  cacheRoot: string;
  /** Aborts the build. */
  signal?: AbortSignal;
  /** Receives human-readable progress lines; default: stderr. */
  progress?: (line: string) => void;
  /** The environment the Go toolchain runs with; default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Seconds between the lines that show a long step of the build, or a wait for another process's build, alive. */
  heartbeatSeconds?: number;
}

/** What {@link buildBinaries} built: the directory holding the binaries, the build log, and how long it took. */
export interface BuildResult {
  /** The directory holding the built kube-apiserver and etcd. */
  dir: string;
  /** The build's log (the go commands' output); '' when another process had built it. */
  logFile: string;
  /** Wall-clock seconds; 0 when another process had built it while we waited. */
  seconds: number;
  /** Go toolchain that compiled the binaries, e.g. "go1.26.8". */
  goVersion?: string;
}

const STEPS = 6;

/** Builds both binaries for one Kubernetes version into the cache and returns the directory. */
export async function buildBinaries(opts: BuildOptions): Promise<BuildResult> {
  const k8s = parseVersion(opts.kubernetesVersion);
  if (!isExact(k8s)) throw new Error(`building needs an exact version such as 1.37.1, not "${opts.kubernetesVersion}"`);
  const version = `${k8s.major}.${k8s.minor}.${k8s.patch}`;
  const etcdVersion = (opts.etcdVersion ?? DEFAULT_ETCD_VERSION).replace(/^v/, '');
  let progress = opts.progress ?? ((line: string) => process.stderr.write(`${line}\n`));
  const finalDir = join(opts.cacheRoot, version);
  const logDir = join(opts.cacheRoot, 'logs');
  await mkdir(logDir, { recursive: true });
  const logFile = join(logDir, `build-${version}-${new Date().toISOString().replace(/[:.]/g, '-')}.log`);

  const what = `kube-apiserver and etcd of Kubernetes ${version}`;
  const heartbeatMs = (opts.heartbeatSeconds ?? 30) * 1000;
  const lockPath = join(opts.cacheRoot, `.build-${version}.lock`);
  const waitStarted = Date.now();
  let waited = false;
  // While another process builds, its progress lines are shown from its log, as it writes them.
  let following: { pid: number; log: BuildLogFollower } | undefined;
  let lastShown = 0;
  const relay = () => {
    if (!following) return;
    for (const line of following.log.read()) {
      progress(`      [pid ${following.pid}] ${line}`);
      lastShown = Date.now();
    }
  };
  const relayTimer = setInterval(relay, Math.min(heartbeatMs, 1000));
  let release: () => Promise<void>;
  try {
    release = await acquireLock(lockPath, {
      signal: opts.signal,
      reportMs: heartbeatMs,
      note: logFile,
      onWait: (pid) => {
        // A process that had only waited takes the lock for a moment once the binaries are there: not a builder.
        if (fsProbe.hasBinaries(finalDir)) return;
        waited = true;
        const builderLog = builderLogOf(lockPath, logDir, version);
        following = builderLog ? { pid, log: new BuildLogFollower(builderLog) } : undefined;
        progress(
          `Another process (pid ${pid}) is building ${what} from source; waiting for it…` +
            (builderLog ? ` Its steps follow (log: ${builderLog}).` : ''),
        );
        relay();
      },
      onStillWaiting: (pid, ms) => {
        if (Date.now() - lastShown >= heartbeatMs)
          progress(`      … still waiting for pid ${pid} to build ${what}: ${fmtSeconds(ms)} so far`);
      },
      // Its build directory is removed below and the build starts over here, unless it had finished.
      onOwnerGone: (pid) => {
        relay();
        following = undefined;
        progress(`pid ${pid} is gone and left its lock; taking over the build of ${what}`);
      },
    });
  } finally {
    relay();
    clearInterval(relayTimer);
  }
  let log: WriteStream | undefined;
  let tmp: string | undefined;
  try {
    if (fsProbe.hasBinaries(finalDir)) {
      if (waited) progress(`${builtBy(finalDir, what)} (waited ${fmtSeconds(Date.now() - waitStarted)})`);
      return { dir: finalDir, logFile: '', seconds: 0 };
    }
    const logOut = createWriteStream(logFile, { flags: 'a' });
    log = logOut;
    // Processes that wait for this build show these lines from the log (build-follow.ts).
    const print = progress;
    progress = (line: string) => {
      print(line);
      logOut.write(`${PROGRESS_PREFIX}${line}\n`);
    };
    await removeStaleBuildDirs(opts.cacheRoot, version);
    tmp = await mkdtemp(join(opts.cacheRoot, `.build-${version}-`));
    progress(`Building kube-apiserver v${version} and etcd v${etcdVersion} from the Go module proxy (log: ${logFile})`);

    const started = Date.now();
    const env = goEnv(opts.env ?? process.env);
    const apiDir = join(tmp, 'apiserver');
    const etcdDir = join(tmp, 'etcd');
    const outDir = join(tmp, 'out');
    await Promise.all([mkdir(apiDir), mkdir(etcdDir), mkdir(outDir)]);
    const run = (cwd: string, args: string[], onStderrLine?: (line: string) => void) =>
      runLogged('go', args, { cwd, env, log: logOut, signal: opts.signal, onStderrLine });
    let stepNo = 0;
    // `go build -v` names each package it compiles: the count, when there is one, shows a long compile moving.
    let packages: number | undefined;
    const countPackages = (line: string) => {
      if (/^[\w.-]+(\/[\w.@~-]+)+$/.test(line) || /^[\w]+$/.test(line)) packages = (packages ?? 0) + 1;
    };
    const step = async <T>(title: string, fn: () => Promise<T>): Promise<T> => {
      stepNo++;
      packages = undefined;
      const t0 = Date.now();
      logOut.write('\n');
      progress(`[${stepNo}/${STEPS}] ${title}`);
      // Every step can take minutes on a cold module or build cache: say which one runs, and for how long.
      const beat = setInterval(() => {
        const count = packages === undefined ? '' : `, ${packages} packages compiled`;
        progress(
          `      … [${stepNo}/${STEPS}] ${fmtSeconds(Date.now() - t0)}${count} (building ${what}, total ${fmtSeconds(Date.now() - started)})`,
        );
      }, heartbeatMs);
      try {
        const result = await fn();
        progress(`      done in ${fmtSeconds(Date.now() - t0)} (total ${fmtSeconds(Date.now() - started)})`);
        return result;
      } finally {
        clearInterval(beat);
      }
    };

    const goVersion = await step('Checking the Go toolchain', async () =>
      (await run(tmp!, ['env', 'GOVERSION'])).trim(),
    );

    const kubeMod = await step(`Reading the go.mod of k8s.io/kubernetes@v${version}`, async () => {
      const info = JSON.parse(await run(tmp!, ['mod', 'download', '-json', `k8s.io/kubernetes@v${version}`])) as {
        GoMod?: string;
        Error?: string;
      };
      if (!info.GoMod) throw new Error(`go mod download k8s.io/kubernetes@v${version}: ${info.Error ?? 'no go.mod'}`);
      const mod = parseKubernetesGoMod(await readFile(info.GoMod, 'utf8'));
      if (!goSatisfies(goVersion, mod.goVersion)) {
        throw new Error(
          `Kubernetes ${version} needs Go ${mod.goVersion} or newer, but this machine has ${goVersion}; install a newer Go or pick an older Kubernetes version`,
        );
      }
      logOut.write(`staging modules (${mod.stagingModules.length}): ${mod.stagingModules.join(' ')}\n`);
      return mod;
    });

    await step(
      `Resolving kube-apiserver's dependencies (${kubeMod.stagingModules.length} staging modules at v0.${k8s.minor}.${k8s.patch})`,
      async () => {
        await writeFile(join(apiDir, 'go.mod'), apiserverWrapperGoMod(k8s, kubeMod));
        await run(apiDir, ['get', `k8s.io/kubernetes/cmd/kube-apiserver@v${version}`]);
      },
    );

    await step('Compiling kube-apiserver (minutes when the Go build cache is cold)', async () => {
      const x = (pkg: string, key: string, value: string) => `-X ${pkg}/version.${key}=${value}`;
      const ldflags = ['-s', '-w'];
      for (const pkg of ['k8s.io/component-base', 'k8s.io/client-go/pkg']) {
        ldflags.push(
          x(pkg, 'gitVersion', `v${version}`),
          x(pkg, 'gitMajor', String(k8s.major)),
          x(pkg, 'gitMinor', String(k8s.minor)),
        );
      }
      const args = [
        'build',
        '-v',
        '-trimpath',
        '-tags=grpcnotrace',
        `-ldflags=${ldflags.join(' ')}`,
        '-o',
        join(outDir, KUBE_APISERVER),
        'k8s.io/kubernetes/cmd/kube-apiserver',
      ];
      await run(apiDir, args, countPackages);
    });

    await step(`Building etcd v${etcdVersion}`, async () => {
      const info = JSON.parse(
        await run(etcdDir, ['mod', 'download', '-json', `go.etcd.io/etcd/server/v3@v${etcdVersion}`]),
      ) as { GoMod?: string; Error?: string };
      if (!info.GoMod)
        throw new Error(`go mod download go.etcd.io/etcd/server/v3@v${etcdVersion}: ${info.Error ?? 'no go.mod'}`);
      const etcdGo = goDirective(await readFile(info.GoMod, 'utf8')) ?? '1.23.0';
      await writeFile(join(etcdDir, 'go.mod'), etcdWrapperGoMod(etcdGo, etcdVersion));
      await run(etcdDir, ['get', `go.etcd.io/etcd/server/v3@v${etcdVersion}`]);
      const args = ['build', '-v', '-trimpath', '-o', join(outDir, ETCD), 'go.etcd.io/etcd/server/v3'];
      await run(etcdDir, args, countPackages);
    });

    await step('Verifying the binaries (--version) and moving them into the cache', async () => {
      const exec = (bin: string) =>
        runLogged(join(outDir, bin), ['--version'], { cwd: outDir, env, log: logOut, signal: opts.signal });
      const apiVersion = parseApiserverVersionOutput(await exec(KUBE_APISERVER));
      if (apiVersion !== version)
        throw new Error(`built kube-apiserver reports version ${apiVersion ?? '(none)'}, expected ${version}`);
      const etcdReported = parseEtcdVersionOutput(await exec(ETCD));
      if (etcdReported !== etcdVersion)
        throw new Error(`built etcd reports version ${etcdReported ?? '(none)'}, expected ${etcdVersion}`);
      const info = {
        kubernetes: version,
        etcd: etcdVersion,
        go: goVersion,
        builtAt: new Date().toISOString(),
        pid: process.pid,
        buildSeconds: Math.round((Date.now() - started) / 100) / 10,
        log: logFile,
      };
      await writeFile(join(outDir, 'build-info.json'), `${JSON.stringify(info, null, 2)}\n`);
      try {
        await rename(outDir, finalDir);
      } catch (err) {
        // Someone else renamed a complete directory into place first (the lock makes this rare): keep theirs.
        const code = (err as NodeJS.ErrnoException).code;
        if (!(code === 'ENOTEMPTY' || code === 'EEXIST') || !fsProbe.hasBinaries(finalDir)) throw err;
      }
    });
    const seconds = (Date.now() - started) / 1000;
    progress(
      `Kubernetes ${version} control plane binaries are in ${finalDir} (built in ${fmtSeconds(seconds * 1000)})`,
    );
    return { dir: finalDir, logFile, seconds, goVersion };
  } catch (err) {
    if (!log || opts.signal?.aborted) throw err;
    throw new Error(`${err instanceof Error ? err.message : String(err)}\nBuild log: ${logFile}`, { cause: err });
  } finally {
    if (log) await new Promise((resolve) => log!.end(resolve));
    if (tmp) await rm(tmp, { recursive: true, force: true });
    await release();
  }
}

/**
 * Who built the binaries in `dir`, from its build-info.json: a process that waited too may have held the lock last,
 * so the lock's owner is not the builder. A directory without the pid (an older kubescaffold's) names none.
 */
function builtBy(dir: string, what: string): string {
  let info: { pid?: number; buildSeconds?: number } = {};
  try {
    info = JSON.parse(readFileSync(join(dir, 'build-info.json'), 'utf8')) as typeof info;
  } catch {
    // not built here (a download, or copied in by hand): no one to name
  }
  const took = typeof info.buildSeconds === 'number' ? ` in ${fmtSeconds(info.buildSeconds * 1000)}` : '';
  return typeof info.pid === 'number' ? `pid ${info.pid} built ${what}${took}` : `Another process built ${what}${took}`;
}

function fmtSeconds(ms: number): string {
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)}s`;
  const whole = Math.round(s);
  return `${Math.floor(whole / 60)}m${String(whole % 60).padStart(2, '0')}s`;
}

/** Go settings for building from the proxy: no workspace, module mode, static binaries, no toolchain download. */
export function goEnv(base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const flags = (base.GOFLAGS ?? '').split(/\s+/).filter((f) => f && !f.startsWith('-mod='));
  return { ...base, GOWORK: 'off', GOFLAGS: [...flags, '-mod=mod'].join(' '), CGO_ENABLED: '0', GOTOOLCHAIN: 'local' };
}

/** Removes build directories of `version` left by a killed build (we hold the lock, so none is live). */
async function removeStaleBuildDirs(root: string, version: string): Promise<void> {
  for (const name of await readdir(root).catch(() => [] as string[])) {
    if (name.startsWith(`.build-${version}-`)) await rm(join(root, name), { recursive: true, force: true });
  }
}
