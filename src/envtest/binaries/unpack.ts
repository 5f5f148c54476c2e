/**
 * Unpacking an envtest archive (controller-tools/envtest/{kube-apiserver,etcd,kubectl}) into one flat
 * directory. Extraction is node-tar's (path checks, modes, gzip), loaded lazily: only a download needs it.
 */
import { chmod, mkdir, readdir, rename, rm } from 'node:fs/promises';
import { basename, join, relative } from 'node:path';
import { ETCD, KUBE_APISERVER } from './paths.js';
import { EnvtestError } from '../errors.js';

/** The binaries an envtest archive holds; kubectl is optional here (envtest's control plane does not run it). */
export const ARCHIVE_BINARIES = [KUBE_APISERVER, ETCD, 'kubectl'] as const;
const REQUIRED = [KUBE_APISERVER, ETCD];

/** Failure to unpack or an archive without the expected files; names the archive. */
export class ArchiveError extends EnvtestError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, { cause: options?.cause });
    this.name = 'ArchiveError';
  }
}

/**
 * Extracts the binaries of `archive` (a .tar.gz) into `outDir` (created), flattening their paths.
 * `label` names the archive in messages (its URL). Returns the names of the binaries found.
 */
export async function unpackEnvtestArchive(archive: string, outDir: string, label: string): Promise<string[]> {
  const { x } = await import('tar');
  const staging = `${outDir}.extract`;
  await mkdir(staging, { recursive: true });
  try {
    try {
      await x({
        file: archive,
        cwd: staging,
        strict: true,
        // Only regular files named like the binaries: nothing else in the archive reaches the disk.
        filter: (path, entry) =>
          'type' in entry && entry.type === 'File' && (ARCHIVE_BINARIES as readonly string[]).includes(basename(path)),
      });
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      if (e.code === 'ENOSPC')
        throw new ArchiveError(
          `no space left on the device while unpacking ${label} into ${staging}; free some space and try again`,
          { cause: err },
        );
      throw new ArchiveError(`could not unpack ${label}: ${e.message} (the archive is damaged or not a .tar.gz)`, {
        cause: err,
      });
    }
    const found = new Map<string, string>();
    for (const rel of await readdir(staging, { recursive: true })) {
      const name = basename(rel);
      if (!(ARCHIVE_BINARIES as readonly string[]).includes(name)) continue;
      if (found.has(name))
        throw new ArchiveError(
          `${label} holds ${name} twice (${relative(staging, found.get(name)!)} and ${rel}); which one to use is unclear`,
        );
      found.set(name, join(staging, rel));
    }
    const missing = REQUIRED.filter((n) => !found.has(n));
    if (missing.length) {
      throw new ArchiveError(
        `${label} holds no ${missing.join(' or ')} (expected controller-tools/envtest/{${ARCHIVE_BINARIES.join(',')}}); nothing was cached`,
      );
    }
    await mkdir(outDir, { recursive: true });
    for (const [name, path] of found) {
      await rename(path, join(outDir, name));
      await chmod(join(outDir, name), 0o755); // archives made without modes would leave them unrunnable
    }
    return [...found.keys()].sort();
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}
