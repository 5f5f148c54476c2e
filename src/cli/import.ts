import type { Command } from 'commander';
import { printWritten } from './flags.js';

interface ImportCRDFlags {
  outputDir?: string;
  force: boolean;
  lossy: boolean;
  kubeconfig?: string;
  context?: string;
}

/** `scaffold import crd`: TypeScript types with markers from other projects' CRDs. */
export function registerImportCommand(program: Command): void {
  const imp = program.command('import').description("Import other projects' APIs into the project");
  imp
    .command('crd')
    .description(
      'Write TypeScript types with +kubebuilder markers, and resource descriptors, for CRDs: from YAML files, folders, https URLs or the cluster',
    )
    .argument(
      '<source...>',
      'a CRD YAML (or JSON) file, a folder of them, an https URL, or the name of a CRD installed in the cluster (<plural>.<group>)',
    )
    .option('--output-dir <dir>', 'where the types are written, one folder per group and version', 'external')
    .option('--force', 'overwrite files that hold something else', false)
    .option(
      '--lossy',
      'write the types even when part of a CRD has no marker spelling (each is a warning, and the run counts the lost paths); without it that is an error',
      false,
    )
    .option('--kubeconfig <file>', 'kubeconfig for CRDs named by name (default: $KUBECONFIG, then ~/.kube/config)')
    .option('--context <name>', 'kubeconfig context to use instead of its current-context')
    .action(async (sources: string[], flags: ImportCRDFlags) => {
      const { formatProblems, importCRDs, lostPaths } = await import('../importer/command.js');
      const root = process.cwd();
      const result = await importCRDs({
        root,
        sources,
        outputDir: flags.outputDir,
        force: flags.force,
        lossy: flags.lossy,
        cluster: { kubeconfig: flags.kubeconfig, context: flags.context },
      });
      for (const line of formatProblems(root, result.problems)) console.error(`warning: ${line}`);
      if (result.written.length === 0) console.log('Nothing to write: the types are up to date.');
      else {
        console.log('Wrote:');
        printWritten(result.written);
      }
      const kinds = result.groupVersions.flatMap((gv) =>
        gv.kinds.map(
          (k) => `${result.outputDir}/${gv.group}/${gv.version}/zz_generated.resources.js (${k.kind}Resource)`,
        ),
      );
      console.log(`Imported ${kinds.length} ${kinds.length === 1 ? 'kind' : 'kinds'}; import their resources from:`);
      for (const k of kinds) console.log(`  ${k}`);
      if (result.problems.length > 0)
        console.error(
          `warning: --lossy: ${lostPaths(result.problems)} path(s) of the CRDs are lost (the warnings above name them); scaffold manifests will not give these CRDs back as they were.`,
        );
    });
}
