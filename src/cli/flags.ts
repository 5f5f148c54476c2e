import { InvalidArgumentError } from 'commander';
import { relative } from 'node:path';
import { missingPaths } from '../markers/paths.js';
import { CliError } from './errors.js';

// Flag parsing shared by the commands; no heavy imports, so the CLI can load it eagerly.

/**
 * A boolean flag's value, with the words kubebuilder (Go's strconv.ParseBool) accepts: 1, t, true and 0, f, false in
 * any case; a bare `--flag` (no value) is true.
 */
export function parseBoolean(value: string | undefined): boolean {
  if (value === undefined) return true;
  const lower = value.toLowerCase();
  if (['true', 't', '1'].includes(lower)) return true;
  if (['false', 'f', '0'].includes(lower)) return false;
  throw new InvalidArgumentError(`expected true or false, got "${value}"`);
}

/** Folders given as a list: repeated flags and comma- or semicolon-separated values both add to it. */
export function collectPaths(value: string, previous: string[] | undefined): string[] {
  return [
    ...(previous ?? []),
    ...value
      .split(/[,;]/)
      .map((p) => p.trim())
      .filter(Boolean),
  ];
}

/** Refuses --paths that name no folder under `root`: a typo would otherwise read nothing and report "up to date". */
export function checkPathsExist(root: string, patterns: readonly string[]): void {
  const missing = missingPaths(root, patterns);
  if (missing.length === 0) return;
  const list = missing.map((p) => `"${p}"`).join(', ');
  throw new CliError(
    `--paths ${list}: no such folder in ${root}. Give folders that hold the API types, relative to where you run this (e.g. ./api/...)`,
  );
}

/** kubectl's --dry-run values; only none and server are implemented (client would need no cluster at all). */
export function parseDryRun(value: string): 'none' | 'server' {
  if (value === 'none' || value === 'server') return value;
  if (value === 'client')
    throw new InvalidArgumentError(
      '"client" is not supported; use --dry-run=server, or `scaffold build config/default` to see the manifests',
    );
  throw new InvalidArgumentError(`must be "none" or "server", not "${value}"`);
}

/** Go-style durations as kubectl takes them: 90s, 2m, 1m30s, 500ms; a bare number is seconds. */
export function parseDuration(value: string): number {
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;
  let total = 0;
  let consumed = '';
  for (const m of value.matchAll(re)) {
    const n = Number(m[1]);
    total += n * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] as 'ms' | 's' | 'm' | 'h'];
    consumed += m[0];
  }
  if (consumed !== value || value === '')
    throw new InvalidArgumentError(`"${value}" is not a duration (examples: 90s, 2m, 1m30s)`);
  return total;
}

/** Prints what a scaffold command wrote, one path a line. */
export function printWritten(paths: string[]): void {
  for (const path of paths) console.log(`  ${path}`);
}

/** One line saying what a generator command wrote (paths relative to the project root), or that nothing changed. */
export function printGenerated(command: string, root: string, written: string[]): void {
  console.log(
    written.length === 0
      ? `${command}: up to date, nothing written`
      : `${command}: wrote ${written.map((p) => relative(root, p)).join(', ')}`,
  );
}
