// Flag parsing shared by the cluster commands; no heavy imports, so the CLI can load it eagerly.
import { InvalidArgumentError } from 'commander';

export interface ClusterFlags {
  kubeconfig?: string;
  context?: string;
  dryRun?: string;
  timeout: string;
}

/** kubectl's --dry-run values; only none and server are implemented (client would need no cluster at all). */
export function parseDryRun(value: string): 'none' | 'server' {
  if (value === 'none' || value === 'server') return value;
  if (value === 'client') throw new InvalidArgumentError('"client" is not supported; use --dry-run=server, or `scaffold build config/default` to see the manifests');
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
  if (consumed !== value || value === '') throw new InvalidArgumentError(`"${value}" is not a duration (examples: 90s, 2m, 1m30s)`);
  return total;
}

export function parseBool(value: string | undefined): boolean {
  if (value === undefined) return true;
  const v = value.toLowerCase();
  if (['true', '1', 'yes'].includes(v)) return true;
  if (['false', '0', 'no'].includes(v)) return false;
  throw new InvalidArgumentError(`expected true or false, not "${value}"`);
}
