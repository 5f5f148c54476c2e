import type { Command } from 'commander';
import { parseBoolean, printWritten } from './flags.js';

interface EditFlags {
  multigroup?: boolean;
  namespaced?: boolean;
  license?: string;
  owner?: string;
}

export function registerEditCommand(program: Command): void {
  program
    .command('edit')
    .description('Change project-wide settings (flags not given keep their current value)')
    .option('--multigroup [bool]', 'enable or disable multi-group layout', parseBoolean)
    .option('--namespaced [bool]', 'enable or disable namespace-scoped deployment', parseBoolean)
    .option('--license <license>', 'license header for generated files: apache2, copyright or none')
    .option('--owner <owner>', 'owner named in the copyright header')
    .action(async (flags: EditFlags) => {
      const { scaffoldEdit } = await import('../scaffold/edit.js');
      const result = scaffoldEdit(process.cwd(), flags);
      console.log('Wrote:');
      printWritten(result.written);
      for (const note of result.notes) console.log(note);
    });
}
