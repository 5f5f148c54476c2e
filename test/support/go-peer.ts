/**
 * The Go peers in bench/go, built for the comparisons that run them (bench/out/go-<name>, rebuilt when a source under
 * bench/go is newer than the binary).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const goDir = fileURLToPath(new URL('../../bench/go/', import.meta.url));
const outDir = fileURLToPath(new URL('../../bench/out/', import.meta.url));

function newestSource(dir: string): number {
  return Math.max(
    ...readdirSync(dir, { withFileTypes: true }).map((e) =>
      e.isDirectory() ? newestSource(join(dir, e.name)) : statSync(join(dir, e.name)).mtimeMs,
    ),
  );
}

/** Builds bench/go/<name> when its sources are newer than the binary, and returns its path; throws saying why not. */
export function buildGoPeer(name: string): string {
  const go = spawnSync('go', ['version'], { encoding: 'utf8' });
  if (go.status !== 0) throw new Error('Go is not installed');
  const binary = join(outDir, `go-${name}`);
  let built = 0;
  try {
    built = statSync(binary).mtimeMs;
  } catch {
    // not built yet
  }
  if (built < newestSource(goDir)) {
    mkdirSync(outDir, { recursive: true });
    const r = spawnSync('go', ['build', '-o', binary, `./${name}`], {
      cwd: goDir,
      encoding: 'utf8',
      env: { ...process.env, CGO_ENABLED: '0' },
    });
    if (r.status !== 0) throw new Error(`building bench/go/${name} failed:\n${r.stderr}`);
  }
  return binary;
}
