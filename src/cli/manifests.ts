import { InvalidArgumentError, type Command } from 'commander';
import { checkPathsExist, collectPaths, printGenerated } from './flags.js';
import { readPackageVersion } from './version.js';

interface ManifestsFlags {
  paths: string[];
  crdDir: string;
  rbacDir: string;
  rbacFileName: string;
  roleName: string;
  maxDescLen?: number;
  allowDangerousTypes?: boolean;
  watch?: boolean;
}

const parseLength = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError(`expected a non-negative integer, got "${value}"`);
  return n;
};

/** `scaffold manifests`: CRDs, RBAC roles and webhook configurations from the `+kubebuilder` markers. */
export function registerManifestsCommand(program: Command): void {
  program
    .command('manifests')
    .description('Generate CustomResourceDefinitions, RBAC roles and webhook configurations from +kubebuilder markers')
    .option('--paths <patterns>', 'folders to read, comma-separated; dir/... includes subfolders', collectPaths)
    .option('--crd-dir <dir>', 'where CRDs are written', 'config/crd/bases')
    .option(
      '--rbac-dir <dir>',
      "where the role is written (controller-gen's output:rbac:artifacts:config)",
      'config/rbac',
    )
    .option(
      '--rbac-file-name <name>',
      "the role's file name (controller-gen's rbac:fileName); list it in the folder's kustomization.yaml",
      'role.yaml',
    )
    .option('--role-name <name>', 'name of the generated ClusterRole/Roles', 'manager-role')
    .option('--max-desc-len <n>', 'truncate descriptions to n bytes (0 drops them)', parseLength)
    .option('--allow-dangerous-types', 'allow `number` (emitted as type: number)')
    .option('--watch', 'regenerate whenever a source file changes')
    .option(
      '--markers',
      'print every marker it reads, with its syntax, where it stands and what it does (controller-gen -w), and exit',
    )
    .action(async (flags: ManifestsFlags & { markers?: boolean }) => {
      if (flags.markers) {
        process.stdout.write((await import('../markers/reference.js')).markerReference());
        return;
      }
      const { runManifests } = await import('../generate/command.js');
      const root = process.cwd();
      // Without --paths the project decides what is read: refuse to run anywhere else rather than write nothing.
      if (!flags.paths || flags.paths.length === 0) await (await import('../generate/project.js')).requireProject(root);
      else checkPathsExist(root, flags.paths);
      const options = {
        root,
        paths: flags.paths && flags.paths.length > 0 ? flags.paths : undefined,
        crdDir: flags.crdDir,
        rbacDir: flags.rbacDir,
        rbacFileName: flags.rbacFileName,
        roleName: flags.roleName,
        maxDescLen: flags.maxDescLen,
        allowDangerousTypes: flags.allowDangerousTypes ?? false,
        generatorVersion: readPackageVersion(),
      };
      if (flags.watch) {
        const { watchManifests } = await import('../generate/watch.js');
        await watchManifests({ ...options, onReady: () => console.log('watching for changes (Ctrl-C to stop)') });
      } else printGenerated('manifests', root, await runManifests(options));
    });
}
