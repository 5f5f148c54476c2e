import { readFileSync } from 'node:fs';

/** The version of this package, read from its package.json (two levels above dist/cli). */
export function readPackageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}
