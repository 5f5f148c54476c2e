/** `scaffold build DIR`: the kustomize build of a config directory, printed like `kubectl kustomize DIR`. */
import type { Command } from 'commander';

export function registerBuildCommand(program: Command): void {
  program
    .command('build')
    .description(
      'Print the kustomize build of a config directory (the subset kubebuilder config trees use), as kubectl kustomize does',
    )
    .argument('[dir]', 'directory holding a kustomization.yaml', '.')
    .option('-o, --output <file>', 'write the YAML to this file instead of stdout')
    .action(async (dir: string, opts: { output?: string }) => {
      const { kustomizeBuildYaml } = await import('../kustomize/index.js');
      const yaml = kustomizeBuildYaml(dir);
      if (opts.output) {
        const { mkdirSync, writeFileSync } = await import('node:fs');
        const { dirname } = await import('node:path');
        mkdirSync(dirname(opts.output), { recursive: true });
        writeFileSync(opts.output, yaml);
      } else {
        process.stdout.write(yaml);
      }
    });
}
