import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readPackageVersion } from '../../../src/cli/version.js';
import { stringifyProject, withPluginConfig } from '../../../src/project/project.js';
import { loadProject } from '../../../src/project/load.js';
import { snapshotTree, tempProjectDir } from '../helpers.js';
import { differingFiles, scaffold } from './cli-run.js';

// A project built the way a user builds one: every command through the CLI, in the project's directory.
const projectCommands: string[][] = [
  ['create', 'api', '--group', 'crew', '--version', 'v1', '--kind', 'Captain'],
  // a second controller for the kind: PROJECT's controllers list, replayed as two create api commands
  [
    'create',
    'api',
    '--group',
    'crew',
    '--version',
    'v1',
    '--kind',
    'Captain',
    '--resource=false',
    '--controller-name',
    'captain-backup',
  ],
  ['create', 'api', '--group', 'crew', '--version', 'v2', '--kind', 'Captain', '--controller=false'],
  ['create', 'api', '--group', 'sea', '--version', 'v1', '--kind', 'Ship', '--plural', 'shipz', '--namespaced=false'],
  ['create', 'api', '--group', 'apps', '--version', 'v1', '--kind', 'Deployment', '--resource=false'],
  [
    'create',
    'webhook',
    '--group',
    'crew',
    '--version',
    'v1',
    '--kind',
    'Captain',
    '--defaulting',
    '--programmatic-validation',
    '--conversion',
    '--spoke',
    'v2',
  ],
  ['create', 'webhook', '--group', 'sea', '--version', 'v1', '--kind', 'Ship', '--programmatic-validation'],
];
const initCommand = [
  'init',
  '--domain',
  'example.com',
  '--multigroup',
  '--license',
  'copyright',
  '--owner',
  'The Crew Authors',
  '--skip-install',
];

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** A temp dir holding an empty project directory `crew-operator`. */
function workspace(): { base: string; root: string } {
  const { root, cleanup } = tempProjectDir('crew-operator');
  cleanups.push(cleanup);
  return { base: join(root, '..'), root };
}

async function buildProject(root: string, init: string[], commands: string[][]): Promise<void> {
  await scaffold(root, ...init);
  for (const command of commands) await scaffold(root, ...command);
}

/** Everything below `dir`: files with content, and every directory entry (so that an empty leftover shows too). */
function state(dir: string): { files: Map<string, string>; entries: string[] } {
  const entries: string[] = [];
  const walk = (d: string, prefix: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      entries.push(`${prefix}${e.name}`);
      if (e.isDirectory()) walk(join(d, e.name), `${prefix}${e.name}/`);
    }
  };
  walk(dir, '');
  return { files: snapshotTree(dir), entries: entries.sort() };
}

describe('scaffold alpha generate', () => {
  it("scaffolds into a new directory a tree equal to the one the commands wrote, apart from PROJECT's cliVersion", async () => {
    const { base, root } = workspace();
    await buildProject(root, initCommand, projectCommands);
    // An older CLI wrote this project: the one documented difference is the version the new PROJECT records.
    const projectPath = join(root, 'PROJECT');
    const project = readFileSync(projectPath, 'utf8');
    writeFileSync(projectPath, project.replace(`cliVersion: ${readPackageVersion()}\n`, 'cliVersion: 0.0.9\n'));
    const before = state(root);

    const out = join(base, 'upgraded');
    const printed = await scaffold(base, 'alpha', 'generate', '--input-dir', root, '--output-dir', out);

    expect(state(root), 'the input directory is left as it was').toEqual(before);
    const generated = snapshotTree(out);
    expect(differingFiles(before.files, generated)).toEqual(['PROJECT']);
    expect(generated.get('PROJECT')).toBe(project);
    expect(printed).toContain(
      "$ scaffold init --domain example.com --repo crew-operator --project-name crew-operator --license copyright --owner 'The Crew Authors' --multigroup --skip-install",
    );
    expect(printed).toContain(
      '$ scaffold create api --group sea --version v1 --kind Ship --plural shipz --resource=true --controller=true --namespaced=false',
    );
    expect(printed).toContain(
      '$ scaffold create api --group apps --version v1 --kind Deployment --resource=false --controller=true',
    );
    expect(printed).toContain(
      '$ scaffold create api --group crew --version v1 --kind Captain --resource=false --controller=true --controller-name captain-backup',
    );
    expect(printed).toContain(
      '$ scaffold create api --group crew --version v2 --kind Captain --resource=true --controller=false --namespaced=true',
    );
    expect(printed).toContain(
      '$ scaffold create webhook --group crew --version v1 --kind Captain --defaulting --programmatic-validation --conversion --spoke v2',
    );
    expect(printed).toContain(`diff -ru -x node_modules -x .git ${root} ${out}`);
    expect(printed).not.toContain('moved to');
  });

  it('after edit --namespaced, scaffolds what init --namespaced would have, where edit left code for the user to change', async () => {
    const edited = workspace();
    await buildProject(edited.root, initCommand, projectCommands.slice(0, 4));
    await scaffold(edited.root, 'edit', '--namespaced');
    const fresh = workspace();
    await buildProject(fresh.root, [...initCommand, '--namespaced'], projectCommands.slice(0, 4));

    const out = join(edited.base, 'upgraded');
    await scaffold(edited.base, 'alpha', 'generate', '--input-dir', edited.root, '--output-dir', out);

    const generated = snapshotTree(out);
    expect(differingFiles(snapshotTree(fresh.root), generated)).toEqual([]);
    // edit rewrites the RBAC and manager manifests itself and asks the user to change main.ts and the controllers'
    // RBAC markers; the role helpers of existing APIs stay ClusterRoles. Those are what the new scaffold changes.
    expect(differingFiles(snapshotTree(edited.root), generated)).toEqual([
      'cmd/main.ts',
      'config/rbac/crew_captain_admin_role.yaml',
      'config/rbac/crew_captain_editor_role.yaml',
      'config/rbac/crew_captain_viewer_role.yaml',
      'config/rbac/sea_ship_admin_role.yaml',
      'config/rbac/sea_ship_editor_role.yaml',
      'config/rbac/sea_ship_viewer_role.yaml',
      'internal/controller/crew/captain_backup_controller.ts',
      'internal/controller/crew/captain_controller.ts',
      'internal/controller/sea/ship_controller.ts',
    ]);
  });

  it('in place, moves the previous files to a backup it names, keeping .git and node_modules where they are', async () => {
    const { base, root } = workspace();
    await buildProject(root, initCommand, projectCommands.slice(0, 1));
    mkdirSync(join(root, '.git'));
    writeFileSync(join(root, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    mkdirSync(join(root, 'node_modules', 'left-pad'), { recursive: true });
    writeFileSync(join(root, 'node_modules', 'left-pad', 'index.js'), 'module.exports = 1;\n');
    const controller = 'internal/controller/crew/captain_controller.ts';
    writeFileSync(
      join(root, controller),
      `${readFileSync(join(root, controller), 'utf8')}// the user's reconcile logic\n`,
    );
    writeFileSync(join(root, 'NOTES.md'), "a file of the user's\n");
    const before = snapshotTree(root);

    const printed = await scaffold(root, 'alpha', 'generate');

    const backup = /Your previous files were moved to (\S+) \(\.git and node_modules stayed in place\)\./.exec(
      printed,
    )?.[1];
    expect(backup, printed).toBeDefined();
    expect(readdirSync(base).sort()).toEqual([backup!.slice(base.length + 1), 'crew-operator'].sort());
    const kept = (path: string): boolean => path.startsWith('.git/') || path.startsWith('node_modules/');
    expect(snapshotTree(backup!)).toEqual(new Map([...before].filter(([path]) => !kept(path))));
    const after = snapshotTree(root);
    expect(new Map([...after].filter(([path]) => kept(path)))).toEqual(
      new Map([...before].filter(([path]) => kept(path))),
    );
    expect(differingFiles(before, after).filter((path) => !kept(path))).toEqual(['NOTES.md', controller]);
    expect(after.has('NOTES.md')).toBe(false);
    expect(after.get(controller)).not.toContain("the user's reconcile logic");
    expect(printed).toContain('git diff');
  });

  it("with --force, moves a non-empty output directory's contents to a backup first", async () => {
    const { base, root } = workspace();
    await buildProject(root, initCommand, []);
    const out = join(base, 'upgraded');
    mkdirSync(out);
    writeFileSync(join(out, 'old.txt'), 'keep me\n');

    const printed = await scaffold(base, 'alpha', 'generate', '--input-dir', root, '--output-dir', out, '--force');

    const backup = /Your previous files were moved to (\S+)\./.exec(printed)?.[1];
    expect(backup, printed).toMatch(/\/upgraded\.backup-\d{8}T\d{6}Z$/);
    expect(snapshotTree(backup!)).toEqual(new Map([['old.txt', 'keep me\n']]));
    expect(differingFiles(snapshotTree(root), snapshotTree(out))).toEqual([]);
  });

  it("keeps the operator's flags (cmd/flags.ts as the user wrote it), in a new directory and in place", async () => {
    const { base, root } = workspace();
    await buildProject(root, initCommand, projectCommands.slice(0, 1));
    const flagsPath = join(root, 'cmd', 'flags.ts');
    const scaffolded = readFileSync(flagsPath, 'utf8');
    const marker = '  // +kubebuilder:scaffold:flags\n';
    expect(scaffolded).toContain(marker);
    const userFlags = scaffolded.replace(
      marker,
      `  'sync-period': { type: 'string', default: '10h', usage: 'How often every Captain is reconciled again.' },\n${marker}`,
    );
    writeFileSync(flagsPath, userFlags);
    const before = snapshotTree(root);

    const out = join(base, 'upgraded');
    const printed = await scaffold(base, 'alpha', 'generate', '--input-dir', root, '--output-dir', out);
    expect(readFileSync(join(out, 'cmd', 'flags.ts'), 'utf8')).toBe(userFlags);
    expect(differingFiles(before, snapshotTree(out))).toEqual([]);
    expect(printed).toContain('Kept as they were: cmd/flags.ts.');
    expect(printed).not.toContain('Note:');

    await scaffold(root, 'alpha', 'generate');
    expect(readFileSync(flagsPath, 'utf8')).toBe(userFlags);
  });

  it('notes a cmd/flags.ts it kept that does not export the operatorFlags the new cmd/main.ts imports', async () => {
    const { base, root } = workspace();
    await buildProject(root, initCommand, []);
    const flagsPath = join(root, 'cmd', 'flags.ts');
    const renamed = readFileSync(flagsPath, 'utf8').replace('export const operatorFlags', 'export const myFlags');
    writeFileSync(flagsPath, renamed);

    const out = join(base, 'upgraded');
    const printed = await scaffold(base, 'alpha', 'generate', '--input-dir', root, '--output-dir', out);
    expect(readFileSync(join(out, 'cmd', 'flags.ts'), 'utf8')).toBe(renamed);
    expect(printed).toContain(
      'Note: cmd/flags.ts, kept from your project, does not export `operatorFlags`, which the new cmd/main.ts imports',
    );
  });

  describe('refuses, changing nothing,', () => {
    it('a directory without PROJECT', async () => {
      const { base, root } = workspace();
      const before = state(base);
      await expect(scaffold(root, 'alpha', 'generate')).rejects.toThrow(`no PROJECT file in ${root}`);
      expect(state(base)).toEqual(before);
    });

    it('a non-empty --output-dir without --force', async () => {
      const { base, root } = workspace();
      await buildProject(root, initCommand, []);
      mkdirSync(join(base, 'upgraded'));
      writeFileSync(join(base, 'upgraded', 'old.txt'), 'keep me\n');
      const before = state(base);
      await expect(
        scaffold(base, 'alpha', 'generate', '--input-dir', root, '--output-dir', join(base, 'upgraded')),
      ).rejects.toThrow(
        /--output-dir .*\/upgraded is not empty \(old\.txt\); give a new or empty directory, or pass --force/,
      );
      expect(state(base)).toEqual(before);
    });

    it('a PROJECT that records a plugin this version does not know', async () => {
      const { base, root } = workspace();
      await buildProject(root, initCommand, projectCommands.slice(0, 1));
      writeFileSync(
        join(root, 'PROJECT'),
        stringifyProject(withPluginConfig(loadProject(root), 'helm.kubebuilder.io/v9-alpha', {})),
      );
      const before = state(base);
      await expect(scaffold(root, 'alpha', 'generate')).rejects.toThrow(
        /PROJECT records plugin helm\.kubebuilder\.io\/v9-alpha, which kubescaffold cannot scaffold again/,
      );
      expect(state(base)).toEqual(before);
    });

    it('a PROJECT whose commands fail part way, naming the command', async () => {
      const { base, root } = workspace();
      await buildProject(root, initCommand, projectCommands.slice(0, 1));
      // A spoke PROJECT lists but no resource has: the webhook command fails after init and create api ran.
      const config = loadProject(root);
      const [captain] = config.resources ?? [];
      writeFileSync(
        join(root, 'PROJECT'),
        stringifyProject({
          ...config,
          resources: [{ ...captain!, webhooks: { webhookVersion: 'v1', conversion: true, spoke: ['v3'] } }],
        }),
      );
      const before = state(base);
      await expect(scaffold(root, 'alpha', 'generate')).rejects.toThrow(
        /`scaffold create webhook --group crew --version v1 --kind Captain --conversion --spoke v3` failed: invalid spoke version "v3"/,
      );
      expect(state(base)).toEqual(before);
    });
  });
});
