/**
 * How a new project depends on kubescaffold's three packages: the runtime (a dependency: the manager runs it), and the
 * CLI and envtest (devDependencies: they build and test it). Installed from the registry, the project asks for the
 * same version range. Run from a checkout or installed from tarballs, the packages are packed into the project's
 * vendor/ and named by relative file: paths, so `npm ci` finds them in a fresh clone and in the image's build stage
 * alike, where an absolute path outside the project would not exist.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ScaffoldError } from '../errors.js';

/** The dependency spec of each package, as the project's package.json writes it. */
export interface PackageSpecs {
  /** kubescaffold, the CLI. */
  cli: string;
  /** @kubescaffold/runtime. */
  runtime: string;
  /** @kubescaffold/envtest. */
  envtest: string;
}

/** A file the project receives as it is: a package tarball under vendor/. */
export interface VendoredFile {
  /** Project-relative path. */
  path: string;
  bytes: Buffer;
}

/** What init writes about kubescaffold's packages. */
export interface ProjectDependencies {
  specs: PackageSpecs;
  /** The tarballs the file: specs name; empty when the specs are registry ranges. */
  vendored: VendoredFile[];
}

/** The folder the tarballs go to, relative to the project. */
export const VENDOR_DIR = 'vendor';

/** Registry ranges for every package, at `version`. */
export function registryDependencies(version: string): ProjectDependencies {
  const range = `^${version}`;
  return { specs: { cli: range, runtime: range, envtest: range }, vendored: [] };
}

/** The installed folders of the three packages, as this CLI resolves them. */
export function installedPackageDirs(): Record<keyof PackageSpecs, string> {
  const require = createRequire(import.meta.url);
  const dirOf = (name: string): string => realpathSync(dirname(require.resolve(`${name}/package.json`)));
  return {
    cli: realpathSync(fileURLToPath(new URL('../../', import.meta.url))),
    runtime: dirOf('@kubescaffold/runtime'),
    envtest: dirOf('@kubescaffold/envtest'),
  };
}

/**
 * Whether this CLI came from the registry: installed under a node_modules whose package.json asked for a version range
 * (not a file: tarball or folder). A checkout is not under node_modules at all.
 */
export function installedFromRegistry(cliDir: string): boolean {
  const parts = cliDir.split(sep);
  const at = parts.lastIndexOf('node_modules');
  if (at < 0) return false;
  const installer = parts.slice(0, at).join(sep);
  let pkg: { dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
  try {
    pkg = JSON.parse(readFileSync(join(installer, 'package.json'), 'utf8')) as typeof pkg;
  } catch {
    return true;
  }
  const spec = pkg.dependencies?.kubescaffold ?? pkg.devDependencies?.kubescaffold;
  return spec === undefined || !/^(file:|\.{0,2}\/)|\.tgz$/.test(spec);
}

/** Packs each package folder with `npm pack` and returns the tarballs as files under vendor/, with their specs. */
export function vendoredDependencies(dirs: Record<keyof PackageSpecs, string>): ProjectDependencies {
  const out = mkdtempSync(join(tmpdir(), 'kubescaffold-pack-'));
  try {
    const order = ['cli', 'runtime', 'envtest'] as const;
    const npm = spawnSync('npm', ['pack', '--json', '--pack-destination', out, ...order.map((k) => dirs[k])], {
      encoding: 'utf8',
    });
    if (npm.status !== 0) {
      throw new ScaffoldError(
        `could not pack kubescaffold's packages into the project's ${VENDOR_DIR}/ (npm pack ${order.map((k) => dirs[k]).join(' ')}):\n${npm.stderr.trim()}`,
      );
    }
    const packed = JSON.parse(npm.stdout) as Array<{ filename: string }>;
    const specs = {} as PackageSpecs;
    const vendored: VendoredFile[] = [];
    order.forEach((key, i) => {
      // npm names a scoped package's tarball scope-name-version.tgz.
      const filename = packed[i]!.filename.replace(/^@/, '').replace('/', '-');
      const path = `${VENDOR_DIR}/${filename}`;
      specs[key] = `file:${path}`;
      vendored.push({ path, bytes: readFileSync(join(out, filename)) });
    });
    return { specs, vendored };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

/** The dependencies of a project scaffolded by this CLI: registry ranges, or the packages it runs from, vendored. */
export function projectDependencies(version: string): ProjectDependencies {
  const dirs = installedPackageDirs();
  return installedFromRegistry(dirs.cli) ? registryDependencies(version) : vendoredDependencies(dirs);
}
