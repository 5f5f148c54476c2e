/**
 * `scaffold deploy` / `scaffold undeploy` / `scaffold build-installer`: config/default (CRDs, RBAC, the manager) on the
 * cluster or in dist/install.yaml. kubebuilder's `make deploy`, `make undeploy` and `make build-installer`; like them,
 * --img is recorded in config/manager/kustomization.yaml (`kustomize edit set image controller=IMG`).
 */
import { Command, Option } from 'commander';
import { parseBoolean, parseDuration } from './flags.js';
import { runClusterCommand } from './cluster-action.js';
import { addConnectionOptions } from './install.js';

interface DeployFlags {
  kubeconfig?: string;
  context?: string;
  dryRun: 'none' | 'server';
  img?: string;
  forceConflicts?: boolean;
  timeout: number;
}

interface UndeployFlags {
  kubeconfig?: string;
  context?: string;
  dryRun: 'none' | 'server';
  ignoreNotFound: boolean;
  wait: boolean;
  timeout: number;
}

export function registerDeployCommand(program: Command): void {
  addConnectionOptions(
    program
      .command('deploy')
      .description('Deploy the controller: apply config/default (namespaces and CRDs first) with server-side apply'),
  )
    .option(
      '--img <image>',
      "the manager image, recorded in config/manager/kustomization.yaml (as kubebuilder's make deploy IMG=...)",
    )
    .option('--force-conflicts', 'take over fields another field manager owns')
    .addOption(
      new Option('--timeout <duration>', 'how long the CRDs may take to become established')
        .argParser(parseDuration)
        .default(60_000, '60s'),
    )
    .action(async (opts: DeployFlags) => {
      await runClusterCommand(opts, async ({ connect, root, print }) => {
        const { applyManifests, buildConfig, setManagerImage } = await import('../cluster/index.js');
        if (opts.img && setManagerImage(root, opts.img))
          print(`config/manager/kustomization.yaml: image controller set to ${opts.img}`);
        const objects = buildConfig(root, 'config/default');
        await applyManifests(await connect(), objects, {
          dryRun: opts.dryRun === 'server',
          forceConflicts: opts.forceConflicts,
          timeoutMs: opts.timeout,
          log: print,
        });
      });
    });
}

export function registerUndeployCommand(program: Command): void {
  addConnectionOptions(
    program
      .command('undeploy')
      .description('Delete everything config/default deploys (workloads first, then CRDs and namespaces)'),
  )
    .option('--ignore-not-found [bool]', 'objects that are already gone are not an error', parseBoolean, false)
    .option('--wait [bool]', 'wait until the objects are gone (namespaces included)', parseBoolean, true)
    .addOption(new Option('--timeout <duration>', 'how long to wait').argParser(parseDuration).default(120_000, '2m'))
    .action(async (opts: UndeployFlags) => {
      await runClusterCommand(opts, async ({ connect, root, print }) => {
        const { buildConfig, deleteManifests } = await import('../cluster/index.js');
        const objects = buildConfig(root, 'config/default');
        await deleteManifests(await connect(), objects, {
          dryRun: opts.dryRun === 'server',
          ignoreNotFound: opts.ignoreNotFound,
          wait: opts.wait,
          timeoutMs: opts.timeout,
          log: print,
        });
      });
    });
}

export function registerBuildInstallerCommand(program: Command): void {
  program
    .command('build-installer')
    .description('Write config/default as one installer, dist/install.yaml (CRDs, RBAC and the manager)')
    .option('--img <image>', 'the manager image, recorded in config/manager/kustomization.yaml')
    .option('-o, --output <file>', 'where to write it', 'dist/install.yaml')
    .action(async (opts: { img?: string; output: string }) => {
      const { buildConfigYaml, setManagerImage } = await import('../cluster/index.js');
      const root = process.cwd();
      if (opts.img && setManagerImage(root, opts.img))
        console.log(`config/manager/kustomization.yaml: image controller set to ${opts.img}`);
      const yaml = buildConfigYaml(root, 'config/default');
      const { mkdirSync, writeFileSync } = await import('node:fs');
      const { dirname } = await import('node:path');
      const { resolveInProject } = await import('../files/confine.js');
      // -o outside the project is the user's choice; a link in the project (dist/ from a clone) must not lead out
      const out = resolveInProject(root, opts.output, 'write', 'allow');
      mkdirSync(dirname(out), { recursive: true });
      writeFileSync(out, yaml);
      console.log(`wrote ${opts.output}`);
    });
}
