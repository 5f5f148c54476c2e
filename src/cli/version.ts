import type { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { RunningCli } from '../project/runtime-version.js';

/** The version of this package, read from its package.json (two levels above dist/cli). */
export function readPackageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/** This CLI as the version-skew check sees it: its version, its range on the runtime, and its package folder. */
export function runningCli(): RunningCli {
  const url = new URL('../../package.json', import.meta.url);
  const pkg = JSON.parse(readFileSync(url, 'utf8')) as { version: string; dependencies: Record<string, string> };
  return {
    version: pkg.version,
    runtimeRange: pkg.dependencies['@kubescaffold/runtime'] ?? pkg.version,
    dir: fileURLToPath(new URL('.', url)),
  };
}

/** `scaffold version`: this CLI's version and what it runs on, as kubebuilder's `version` prints its build info. */
export function registerVersionCommand(program: Command): void {
  program
    .command('version')
    .description(
      'Print the kubescaffold version, the Node.js it runs on, and the default Kubernetes version for envtest',
    )
    .action(async () => {
      const { DEFAULT_KUBERNETES_VERSION } = await import('@kubescaffold/envtest/versions');
      console.log(`kubescaffold ${readPackageVersion()}`);
      console.log(`node ${process.version} (${process.platform}/${process.arch})`);
      console.log(`envtest default Kubernetes ${DEFAULT_KUBERNETES_VERSION}`);
    });
}
