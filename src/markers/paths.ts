/** Which folders and files `--paths` selects; no TypeScript here, so callers can look before loading the compiler. */
import { existsSync, readdirSync, type Dirent } from 'node:fs';
import { join, resolve } from 'node:path';

const skipAnywhere = new Set(['node_modules', 'dist', 'coverage']);
// Project folders that never hold TypeScript sources of the operator.
const skipAtRoot = new Set(['bin', 'config', 'hack']);

/** Source files that can hold API types or markers: `.ts`, not declarations, not tests. */
export function isSourceFile(name: string): boolean {
  return name.endsWith('.ts') && !name.endsWith('.d.ts') && !/\.(test|spec)\.ts$/.test(name);
}

/** The source files directly in a folder, sorted. */
export function listSourceFiles(dir: string): string[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .filter((e) => (e.isFile() || e.isSymbolicLink()) && isSourceFile(e.name))
    .map((e) => e.name)
    .sort()
    .map((e) => join(dir, e));
}

// A folder with its own package.json is another package (imported API types, say), as a folder with its own go.mod
// is another module that Go's ./... does not descend into.
const isPackage = (dir: string): boolean => existsSync(join(dir, 'package.json'));

/** The patterns of `paths` whose folder (or file) does not exist: reading them would find nothing and say nothing. */
export function missingPaths(root: string, patterns: readonly string[]): string[] {
  return patterns.filter((pattern) => {
    const recursive = pattern === '...' || pattern.endsWith('/...');
    return !existsSync(resolve(root, recursive ? pattern.slice(0, -3) || '.' : pattern));
  });
}

/**
 * Folders to read for `paths`: `dir` (that folder) or `dir/...` (it and every folder below, skipping
 * node_modules, dist, hidden folders, config/ and folders with a package.json of their own). Mirrors Go's package
 * patterns used by controller-gen.
 */
export function expandPaths(root: string, patterns: readonly string[]): string[] {
  const out = new Set<string>();
  for (const pattern of patterns) {
    const recursive = pattern === '...' || pattern.endsWith('/...');
    const base = resolve(root, recursive ? pattern.slice(0, -3) || '.' : pattern);
    if (!recursive) {
      out.add(base);
      continue;
    }
    const walk = (dir: string): void => {
      out.add(dir);
      const atRoot = dir === resolve(root);
      let entries: Dirent[];
      try {
        entries = readdirSync(dir, { withFileTypes: true });
      } catch {
        return;
      }
      for (const e of entries) {
        if (
          !e.isDirectory() ||
          e.name.startsWith('.') ||
          skipAnywhere.has(e.name) ||
          (atRoot && skipAtRoot.has(e.name)) ||
          isPackage(join(dir, e.name))
        )
          continue;
        walk(join(dir, e.name));
      }
    };
    walk(base);
  }
  return [...out].sort();
}
