import type { Command } from 'commander';
import { collectPaths } from './flags.js';

interface GenerateFlags {
  paths?: string[];
}

/** `scaffold generate`: api/<version>/zz_generated.resources.ts from the markers. */
export function registerGenerateCommand(program: Command): void {
  program
    .command('generate')
    .description('Generate api/<version>/zz_generated.resources.ts (typed resource descriptors) from +kubebuilder markers')
    .option('--paths <patterns>', 'folders to read, comma-separated; dir/... includes subfolders', collectPaths)
    .action(async (flags: GenerateFlags) => {
      const { runGenerate } = await import('../generate/command.js');
      await runGenerate({ root: process.cwd(), paths: flags.paths && flags.paths.length > 0 ? flags.paths : undefined });
    });
}
