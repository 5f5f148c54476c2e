import { relative } from 'node:path';
import type { Command } from 'commander';
import type { GenerateResult } from '../scaffold/alpha/generate.js';

interface AlphaGenerateFlags {
  inputDir?: string;
  outputDir?: string;
  force?: boolean;
}

/** `scaffold alpha`: kubebuilder's group of commands that may still change. */
export function registerAlphaCommand(program: Command): void {
  const alpha = program
    .command('alpha')
    .description('Experimental commands, which may change in later versions (as kubebuilder alpha)');
  alpha
    .command('generate')
    .description(
      'Scaffold the project again from its PROJECT file with this version of kubescaffold, to upgrade its scaffold',
    )
    .option('--input-dir <dir>', 'directory of the project whose PROJECT file is read (default: the current directory)')
    .option(
      '--output-dir <dir>',
      'directory for the new scaffold (default: the input directory, whose files are moved to a backup next to it first)',
    )
    .option('--force', 'write into a non-empty --output-dir, after moving its contents to a backup next to it')
    .action(async (flags: AlphaGenerateFlags) => {
      const [{ generateFromProject }, { projectDependencies }, { readPackageVersion }] = await Promise.all([
        import('../scaffold/alpha/generate.js'),
        import('../scaffold/dependencies.js'),
        import('./version.js'),
      ]);
      const result = await generateFromProject({
        inputDir: flags.inputDir ?? process.cwd(),
        outputDir: flags.outputDir,
        force: Boolean(flags.force),
        dependencies: () => projectDependencies(readPackageVersion()),
        cliVersion: readPackageVersion(),
        log: (line) => console.log(line),
      });
      console.log(generatedMessage(result, readPackageVersion()));
    });
}

/** What was done, where the user's previous files are, and how to bring their code over to the new scaffold. */
export function generatedMessage(result: GenerateResult, version: string): string {
  const out = relative(process.cwd(), result.outputDir) || '.';
  const lines = [`Scaffolded ${result.outputDir} again from ${result.inputDir}/PROJECT with kubescaffold ${version}.`];
  if (result.backupDir !== undefined) {
    const kept = result.keptInPlace.length > 0 ? ` (${result.keptInPlace.join(' and ')} stayed in place)` : '';
    lines.push(`Your previous files were moved to ${result.backupDir}${kept}.`);
  }
  for (const note of result.notes) lines.push(`Note: ${note}`);
  const git = result.keptInPlace.includes('.git');
  lines.push(
    '',
    'Next: bring your own code over to the new scaffold.',
    git && result.inPlace
      ? `1. See what changed with \`git diff\` (your last commit is your previous code), or: diff -ru ${result.previousDir} ${result.outputDir}`
      : `1. See what changed: diff -ru -x node_modules -x .git ${result.previousDir} ${result.outputDir}`,
    '2. Copy back what you wrote: the fields and markers of your types (api/), your reconcile logic (internal/controller/),',
    "   your webhooks' logic (internal/webhook/), tests, and your edits to cmd/main.ts, config/, Makefile, package.json, README.md.",
    `3. Then: ${out === '.' ? '' : `cd ${out} && `}npm install && npx scaffold generate && npx scaffold manifests && npm test`,
  );
  return lines.join('\n');
}
