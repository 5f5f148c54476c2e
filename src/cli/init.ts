import { spawnSync } from 'node:child_process';
import type { Command } from 'commander';
import { CliError } from './errors.js';
import { parseBoolean } from './flags.js';
import { addPluginOptions, printChainResults } from './plugins.js';
import { readPackageVersion } from './version.js';

interface InitFlags {
  domain: string;
  repo?: string;
  owner?: string;
  license: string;
  licenseFile?: string;
  projectName?: string;
  multigroup: boolean;
  namespaced: boolean;
  skipInstall?: boolean;
  [pluginFlag: string]: unknown;
}

export function registerInitCommand(program: Command): void {
  const init = program
    .command('init')
    .description('Initialize a new TypeScript operator project in the current directory')
    .option('--domain <domain>', 'domain for the API groups', 'my.domain')
    .option('--repo <name>', 'repository or package name of the project (defaults to the project name)')
    .option('--owner <owner>', 'owner named in the copyright header')
    .option('--license <license>', 'license header for generated files: apache2, copyright or none', 'apache2')
    .option(
      '--license-file <path>',
      'a file holding your own header for generated files (one /* */ comment block), copied to hack/boilerplate.txt in place of --license',
    )
    .option('--project-name <name>', 'name of the project (defaults to the directory name)')
    .option('--multigroup [bool]', 'put APIs of several groups in api/<group>/<version>', parseBoolean, false)
    .option(
      '--namespaced [bool]',
      'the manager watches only its own namespace(s), with Roles instead of ClusterRoles',
      parseBoolean,
      false,
    )
    .option('--skip-install', 'do not run npm install in the new project');
  const plugins = addPluginOptions(init, 'init');
  init.action(async (flags: InitFlags) => {
    // Resolved before anything is written, so that an unknown plugin leaves the directory as it was.
    const chain = await plugins.chain(flags);
    const [{ scaffoldInit }, { projectDependencies }, { runChain }, { layoutKeys }, { pluginArgs }] = await Promise.all(
      [
        import('../scaffold/init.js'),
        import('../scaffold/dependencies.js'),
        import('../scaffold/plugins/run-chain.js'),
        import('../scaffold/plugins/chain.js'),
        import('../scaffold/plugins/external/protocol.js'),
      ],
    );
    const root = process.cwd();
    const layout = layoutKeys(chain.steps);
    let projectName = '';
    const results = await runChain(
      root,
      chain.steps,
      {
        layout: () => {
          const result = scaffoldInit(root, {
            domain: flags.domain,
            repo: flags.repo,
            owner: flags.owner,
            license: flags.license,
            licenseFile: flags.licenseFile,
            projectName: flags.projectName,
            multigroup: flags.multigroup,
            namespaced: flags.namespaced,
            dependencies: () => projectDependencies(readPackageVersion()),
            cliVersion: readPackageVersion(),
            layout,
          });
          projectName = result.project.projectName;
          return { written: result.written, notes: [], warnings: result.warnings };
        },
        builtin: async (spec) => {
          const plugin = await spec.load();
          const result = plugin.edit?.(root, chain.builtinFlags.get(spec) ?? {}) ?? { written: [], notes: [] };
          return { ...result, warnings: [] };
        },
      },
      {
        command: 'init',
        args: pluginArgs(chain.argv),
        // what kubebuilder's configuration holds before its layout plugin ran
        pendingConfig: { version: '3', layout, cliVersion: readPackageVersion() },
      },
    );
    printChainResults(
      results.map((r) => (r.step.kind === 'layout' ? { ...r, header: `Wrote project ${projectName}:` } : r)),
    );
    if (!flags.skipInstall) {
      console.log('Running npm install...');
      // Ctrl-C reaches npm and us alike; ignoring it here lets us say how to finish once npm has stopped.
      const ignore = (): void => {};
      process.on('SIGINT', ignore);
      const npm = spawnSync('npm', ['install'], { cwd: root, stdio: 'inherit' });
      process.off('SIGINT', ignore);
      if (npm.signal) {
        throw new CliError(
          `npm install was stopped (${npm.signal}); the project files are in place: run \`npm install\` to finish`,
        );
      }
      if (npm.status !== 0) {
        throw new CliError(
          'npm install failed (see above); the project files are in place: fix the problem and run `npm install` yourself',
        );
      }
    }
    // Inside the project `npx scaffold` runs its own kubescaffold dependency; before npm install it would fetch the
    // unrelated npm package named scaffold.
    if (flags.skipInstall) console.log('Next: install the dependencies with:\n$ npm install');
    console.log(
      `${flags.skipInstall ? 'Then' : 'Next'}: define a resource with:\n$ npx scaffold create api --group <group> --version <version> --kind <Kind>`,
    );
  });
}
