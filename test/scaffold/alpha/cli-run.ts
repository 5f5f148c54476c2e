import { vi } from 'vitest';
import { buildProgram } from '../../../src/cli/index.js';

/** Runs `scaffold <argv>` in `cwd` through the CLI program, in this process; returns what it printed. */
export async function scaffold(cwd: string, ...argv: string[]): Promise<string> {
  const out: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void out.push(args.join(' ')));
  const warn = vi.spyOn(console, 'warn').mockImplementation((...args: unknown[]) => void out.push(args.join(' ')));
  const previous = process.cwd();
  process.chdir(cwd);
  try {
    await buildProgram().parseAsync(['node', 'scaffold', ...argv]);
  } finally {
    process.chdir(previous);
    log.mockRestore();
    warn.mockRestore();
  }
  return out.join('\n');
}

/** The files that differ between two trees (present in one only, or with other content). */
export function differingFiles(a: Map<string, string>, b: Map<string, string>): string[] {
  const paths = new Set([...a.keys(), ...b.keys()]);
  return [...paths].filter((p) => a.get(p) !== b.get(p)).sort();
}
