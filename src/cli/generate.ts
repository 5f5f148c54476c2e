import type { Command } from 'commander';
import { checkPathsExist, collectPaths, printGenerated } from './flags.js';

interface GenerateFlags {
  paths?: string[];
}

/** `scaffold generate`: api/<version>/zz_generated.resources.ts from the markers. */
export function registerGenerateCommand(program: Command): void {
  program
    .command('generate')
    .description(
      'Generate api/<version>/zz_generated.resources.ts (typed resource descriptors) from +kubebuilder markers',
    )
    .option('--paths <patterns>', 'folders to read, comma-separated; dir/... includes subfolders', collectPaths)
    .action(async (flags: GenerateFlags) => {
      const { runGenerate } = await import('../generate/command.js');
      const root = process.cwd();
      const paths = flags.paths && flags.paths.length > 0 ? flags.paths : undefined;
      // Without --paths the project decides what is read: refuse to run anywhere else rather than write nothing.
      if (!paths) await (await import('../generate/project.js')).requireProject(root);
      else checkPathsExist(root, paths);
      printGenerated('generate', root, await runGenerate({ root, paths }));
    });
}
