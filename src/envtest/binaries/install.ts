/**
 * Installing one envtest release into the cache: download into a temp dir next to the cache entry,
 * verify the sha512, unpack, check that the binaries run here and report the expected version, then
 * rename the directory into place. Any failure or interrupt removes the temp dir, so the cache only
 * ever gains complete version directories.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fsProbe } from './find.js';
import { downloadFile, type DownloadNetworkOptions } from './download.js';
import { readExecutableFormat } from './executable-format.js';
import { acquireLock } from './lock.js';
import { ETCD, KUBE_APISERVER } from './paths.js';
import { formatPlatform, hostPlatform } from './platform.js';
import { downloadReporter, formatDuration, type ProgressOutput } from './progress.js';
import type { EnvtestRelease } from './release-index.js';
import { ArchiveError, unpackEnvtestArchive } from './unpack.js';
import { parseApiserverVersionOutput } from '../versions.js';

export interface InstallOptions extends DownloadNetworkOptions {
  /** The cache root; the release lands in <cacheRoot>/<version>. */
  cacheRoot: string;
  /** The index the release came from, recorded next to the binaries. */
  indexUrl: string;
  output: ProgressOutput;
  /** Clock for the progress display. */
  now?: () => number;
}

export interface InstallResult {
  dir: string;
  /** 0 when another process installed it while we waited for the lock. */
  seconds: number;
}

/** Installs `release` into the cache (or finds it there once the lock is ours). */
export async function installRelease(release: EnvtestRelease, opts: InstallOptions): Promise<InstallResult> {
  const finalDir = join(opts.cacheRoot, release.version);
  await mkdir(opts.cacheRoot, { recursive: true });
  const unlock = await acquireLock(join(opts.cacheRoot, `.install-${release.version}.lock`), {
    signal: opts.signal,
    onWait: (pid) =>
      opts.output.line(`Another process (pid ${pid}) is installing Kubernetes ${release.version}; waiting for it…`),
    onStillWaiting: (pid, ms) =>
      opts.output.line(
        `      … still waiting for pid ${pid} to install Kubernetes ${release.version}: ${formatDuration(ms / 1000)} so far`,
      ),
    onOwnerGone: (pid) =>
      opts.output.line(
        `pid ${pid} stopped before it finished installing Kubernetes ${release.version}; installing it here`,
      ),
  });
  let tmp: string | undefined;
  try {
    if (fsProbe.hasBinaries(finalDir)) return { dir: finalDir, seconds: 0 };
    await removeStaleDownloads(opts.cacheRoot, release.version);
    tmp = await mkdtemp(join(opts.cacheRoot, `.download-${release.version}-`));
    const started = Date.now();
    const archive = join(tmp, release.archiveName);
    opts.output.line(`Downloading ${release.url}`);
    const reporter = downloadReporter(release.archiveName, opts.output, opts.now);
    try {
      await downloadFile(release.url, archive, {
        ...opts,
        sha512: release.sha512,
        onProgress: (p) => reporter.update(p),
        onRetry: (err, n) => {
          reporter.finish();
          opts.output.line(`${err.message}; retrying (attempt ${n + 1})…`);
        },
      });
    } finally {
      reporter.finish();
    }
    const out = join(tmp, 'out');
    await unpackEnvtestArchive(archive, out, release.url);
    await rm(archive, { force: true });
    await checkRunsHere(out, release);
    const seconds = (Date.now() - started) / 1000;
    const info = {
      kubernetes: release.version,
      source: 'download',
      archive: release.archiveName,
      url: release.url,
      index: opts.indexUrl,
      sha512: release.sha512,
      downloadedAt: new Date().toISOString(),
      seconds: Math.round(seconds * 10) / 10,
    };
    await writeFile(join(out, 'download-info.json'), `${JSON.stringify(info, null, 2)}\n`);
    try {
      await rename(out, finalDir);
    } catch (err) {
      // A complete directory got there first (a build of the same version, say): keep it.
      const code = (err as NodeJS.ErrnoException).code;
      if (!(code === 'ENOTEMPTY' || code === 'EEXIST') || !fsProbe.hasBinaries(finalDir)) throw err;
    }
    return { dir: finalDir, seconds };
  } finally {
    if (tmp) await rm(tmp, { recursive: true, force: true });
    await unlock();
  }
}

const execFileAsync = promisify(execFile);

/**
 * Checks that kube-apiserver and etcd are programs for this machine and run (`--version`), and that
 * kube-apiserver is the version the index says: a wrong archive fails here, not in a test.
 */
async function checkRunsHere(dir: string, release: EnvtestRelease): Promise<void> {
  const host = hostPlatform();
  const here = formatPlatform(host);
  for (const bin of [KUBE_APISERVER, ETCD]) {
    const format = await readExecutableFormat(join(dir, bin));
    const what = `${bin} from ${release.url}`;
    if (format.kind === 'unknown')
      throw new ArchiveError(`${what} does not run here (${here}): it is ${format.detail}; nothing was cached`);
    if (format.kind === 'binary' && (format.platform.os !== host.os || format.platform.arch !== host.arch)) {
      throw new ArchiveError(
        `${what} does not run here: it is a ${formatPlatform(format.platform)} program and this machine is ${here}; nothing was cached`,
      );
    }
    let stdout: string;
    try {
      ({ stdout } = await execFileAsync(join(dir, bin), ['--version'], { timeout: 30_000 }));
    } catch (err) {
      const e = err as Error & { stderr?: string };
      throw new ArchiveError(
        `${what} does not run here (${here}): \`${bin} --version\` failed: ${e.stderr?.trim() || e.message}; nothing was cached`,
        { cause: err },
      );
    }
    if (bin === KUBE_APISERVER) {
      const reported = parseApiserverVersionOutput(stdout);
      if (reported !== release.version) {
        throw new ArchiveError(
          `${what} reports version ${reported ?? '(none)'}, but the index lists it as ${release.version}; nothing was cached`,
        );
      }
    }
  }
}

/** Temp dirs of `version` left by a killed download (we hold the lock, so none is live). */
async function removeStaleDownloads(root: string, version: string): Promise<void> {
  for (const name of await readdir(root).catch(() => [] as string[])) {
    if (name.startsWith(`.download-${version}-`)) await rm(join(root, name), { recursive: true, force: true });
  }
}
