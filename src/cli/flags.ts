import { InvalidArgumentError } from 'commander';

/** Parses kubebuilder-style boolean flag values: `--resource`, `--resource=true`, `--resource=false`. */
export function parseBoolean(value: string): boolean {
  const lower = value.toLowerCase();
  if (['true', '1', 'yes', 'y'].includes(lower)) return true;
  if (['false', '0', 'no', 'n'].includes(lower)) return false;
  throw new InvalidArgumentError(`expected true or false, got "${value}"`);
}

/** Prints what a scaffold command wrote, one path a line. */
export function printWritten(paths: string[]): void {
  for (const path of paths) console.log(`  ${path}`);
}
