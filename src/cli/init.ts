import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { CliError } from './errors.js';
import { parseBoolean, printWritten } from './flags.js';
import { addPluginOptions, runEditPlugins, selectedPlugins } from './plugins.js';
import { readPackageVersion } from './version.js';

interface InitFlags {
  domain: string;
  repo?: string;
  owner?: string;
  license: string;
  projectName?: string;
  multigroup: boolean;
  namespaced: boolean;
  skipInstall?: boolean;
  [pluginFlag: string]: unknown;
}

/**
 * How the new project depends on kubescaffold, following how this CLI was installed: from a tarball or folder
 * (`npm install ./kubescaffold-0.1.0.tgz`, `npm exec --package=./kubescaffold-0.1.0.tgz`), the same file, so the
 * project installs what the user has; from the registry, the published range; run from a checkout, a file: link to it
 * (so the project builds against the code that scaffolded it). KUBESCAFFOLD_DEPENDENCY overrides all of these.
 */
export function kubescaffoldDependencySpec(): string {
  if (process.env.KUBESCAFFOLD_DEPENDENCY) return process.env.KUBESCAFFOLD_DEPENDENCY;
  const packageRoot = fileURLToPath(new URL('../../', import.meta.url)).replace(/\/$/, '');
  const parts = packageRoot.split('/');
  const at = parts.lastIndexOf('node_modules');
  if (at < 0) return `file:${packageRoot}`;
  // The package.json that asked for kubescaffold: npm's own record of where it came from.
  const installer = parts.slice(0, at).join('/');
  const spec = installedFrom(join(installer, 'package.json'));
  if (spec?.startsWith('file:')) return `file:${resolve(installer, spec.slice('file:'.length))}`;
  return `^${readPackageVersion()}`;
}

function installedFrom(packageJson: string): string | undefined {
  try {
    const pkg = JSON.parse(readFileSync(packageJson, 'utf8')) as { dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
    return pkg.dependencies?.kubescaffold ?? pkg.devDependencies?.kubescaffold;
  } catch {
    return undefined;
  }
}

export function registerInitCommand(program: Command): void {
  const init = program
    .command('init')
    .description('Initialize a new TypeScript operator project in the current directory')
    .option('--domain <domain>', 'domain for the API groups', 'my.domain')
    .option('--repo <name>', 'repository or package name of the project (defaults to the project name)')
    .option('--owner <owner>', 'owner named in the copyright header')
    .option('--license <license>', 'license header for generated files: apache2, copyright or none', 'apache2')
    .option('--project-name <name>', 'name of the project (defaults to the directory name)')
    .option('--multigroup [bool]', 'put APIs of several groups in api/<group>/<version>', parseBoolean, false)
    .option('--namespaced [bool]', 'the manager watches only its own namespace(s), with Roles instead of ClusterRoles', parseBoolean, false)
    .option('--skip-install', 'do not run npm install in the new project');
  addPluginOptions(init, 'init').action(async (flags: InitFlags) => {
      // Resolved before anything is written, so that an unknown plugin leaves the directory as it was.
      const plugins = selectedPlugins(flags, 'init');
      const { scaffoldInit } = await import('../scaffold/init.js');
      const root = process.cwd();
      const result = scaffoldInit(root, {
        domain: flags.domain,
        repo: flags.repo,
        owner: flags.owner,
        license: flags.license,
        projectName: flags.projectName,
        multigroup: flags.multigroup,
        namespaced: flags.namespaced,
        kubescaffoldSpec: kubescaffoldDependencySpec(),
        cliVersion: readPackageVersion(),
      });
      for (const warning of result.warnings) console.warn(`Warning: ${warning}`);
      console.log(`Wrote project ${result.project.projectName}:`);
      printWritten(result.written);
      if (plugins.size > 0) {
        const applied = await runEditPlugins(root, plugins);
        printWritten(applied.written);
        for (const note of applied.notes) console.log(note);
      }
      if (!flags.skipInstall) {
        console.log('Running npm install...');
        // Ctrl-C reaches npm and us alike; ignoring it here lets us say how to finish once npm has stopped.
        const ignore = (): void => {};
        process.on('SIGINT', ignore);
        const npm = spawnSync('npm', ['install'], { cwd: root, stdio: 'inherit' });
        process.off('SIGINT', ignore);
        if (npm.signal) {
          throw new CliError(`npm install was stopped (${npm.signal}); the project files are in place: run \`npm install\` to finish`);
        }
        if (npm.status !== 0) {
          throw new CliError('npm install failed (see above); the project files are in place: fix the problem and run `npm install` yourself');
        }
      }
      // Inside the project `npx scaffold` runs its own kubescaffold dependency; before npm install it would fetch the
      // unrelated npm package named scaffold.
      if (flags.skipInstall) console.log('Next: install the dependencies with:\n$ npm install');
      console.log(`${flags.skipInstall ? 'Then' : 'Next'}: define a resource with:\n$ npx scaffold create api --group <group> --version <version> --kind <Kind>`);
    });
}
