import type { Command } from 'commander';
import { CliError } from './errors.js';

interface GenerateFlags {
  paths?: string[];
}

const collectPaths = (value: string, previous: string[] | undefined): string[] => [
  ...(previous ?? []),
  ...value
    .split(/[,;]/)
    .map((p) => p.trim())
    .filter(Boolean),
];

/** `scaffold generate`: api/<version>/zz_generated.resources.ts from the markers. */
export function registerGenerateCommand(program: Command): void {
  program
    .command('generate')
    .description('Generate api/<version>/zz_generated.resources.ts (typed resource descriptors) from +kubebuilder markers')
    .option('--paths <patterns>', 'folders to read, comma-separated; dir/... includes subfolders', collectPaths)
    .action(async (flags: GenerateFlags) => {
      const { runGenerate } = await import('../generate/command.js');
      try {
        await runGenerate({ root: process.cwd(), paths: flags.paths && flags.paths.length > 0 ? flags.paths : undefined });
      } catch (err) {
        if (err instanceof Error && err.name === 'DiagnosticsError') throw new CliError(err.message);
        throw err;
      }
    });
}
