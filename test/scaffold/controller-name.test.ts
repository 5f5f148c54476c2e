/**
 * Several controllers for one kind (`create api --controller-name`): the files and classes they get, PROJECT's
 * `controllers:` list, the refusals (each leaving the project as it was), and old PROJECT files with `controller: true`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadProject } from '../../src/project/load.js';
import { scaffoldCreateAPI, type CreateAPIOptions } from '../../src/scaffold/api.js';
import { initProject, snapshotTree, tempProjectDir } from './helpers.js';
import { typeErrors } from '../support/typecheck.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

const captain = { group: 'crew', version: 'v1', kind: 'Captain', namespaced: true, force: false };
const controllerOnly = (controllerName?: string): CreateAPIOptions => ({
  ...captain,
  resource: false,
  controller: true,
  controllerName,
});

function projectWithCaptain(options: { multigroup?: boolean } = {}): string {
  const { root, cleanup } = tempProjectDir();
  cleanups.push(cleanup);
  initProject(root, options);
  scaffoldCreateAPI(root, { ...captain, resource: true, controller: true });
  return root;
}

describe('create api --controller-name', () => {
  it('adds a second controller in its own file and class, both wired in main, and compiling', () => {
    const root = projectWithCaptain();
    const { written } = scaffoldCreateAPI(root, controllerOnly('captain-backup'));
    expect(written).toEqual(
      expect.arrayContaining([
        'internal/controller/captain_backup_controller.ts',
        'internal/controller/captain_backup_controller.test.ts',
        'internal/controller/captain_backup_controller.fake.test.ts',
      ]),
    );
    const main = readFileSync(join(root, 'cmd/main.ts'), 'utf8');
    expect(main).toContain('new CaptainReconciler(mgr.getClient()).setupWithManager(mgr);');
    expect(main).toContain('new CaptainBackupReconciler(mgr.getClient()).setupWithManager(mgr);');
    const dir = join(root, 'internal/controller');
    expect(readFileSync(join(dir, 'captain_backup_controller.test.ts'), 'utf8')).toContain(
      "import { CaptainBackupReconciler } from './captain_backup_controller.js';",
    );
    expect(typeErrors(['captain_backup_controller.ts', 'captain_controller.ts'].map((f) => join(dir, f)))).toEqual([]);
    expect(loadProject(root).resources?.[0]?.controllers).toEqual([{ name: 'captain' }, { name: 'captain-backup' }]);
    expect(loadProject(root).resources?.[0]?.controller).toBeUndefined();
  });

  it('prefixes the runtime name with the group in a multigroup project, as kubebuilder does', () => {
    const root = projectWithCaptain({ multigroup: true });
    scaffoldCreateAPI(root, controllerOnly('captain-backup'));
    expect(readFileSync(join(root, 'internal/controller/crew/captain_backup_controller.ts'), 'utf8')).toContain(
      ".named('crew-captain-backup')",
    );
  });

  it("names a new resource's first controller when given with --resource", () => {
    const { root, cleanup } = tempProjectDir();
    cleanups.push(cleanup);
    initProject(root);
    scaffoldCreateAPI(root, { ...captain, resource: true, controller: true, controllerName: 'fleet' });
    expect(loadProject(root).resources?.[0]?.controllers).toEqual([{ name: 'fleet' }]);
    expect(readFileSync(join(root, 'internal/controller/fleet_controller.ts'), 'utf8')).toContain(
      'export class FleetReconciler',
    );
  });

  it('reads an old PROJECT with controller: true, and scaffolds it again with --force as before', () => {
    const root = projectWithCaptain();
    expect(loadProject(root).resources?.[0]).toMatchObject({ controller: true });
    scaffoldCreateAPI(root, { ...controllerOnly(), force: true });
    expect(loadProject(root).resources?.[0]).toMatchObject({ controller: true });
    expect(loadProject(root).resources?.[0]?.controllers).toBeUndefined();
  });

  describe('refuses, changing nothing,', () => {
    const refusals: Array<[string, (root: string) => void, RegExp]> = [
      ['an invalid name', () => {}, /invalid controller name "Captain_Backup": a DNS-1035 label/],
      ['the name of the legacy controller', () => {}, /controller with name "captain" already exists/],
      [
        'a taken name',
        (root) => scaffoldCreateAPI(root, controllerOnly('captain-backup')),
        /controller with name "captain-backup" already exists/,
      ],
      [
        'a name that normalizes like a taken one',
        (root) => scaffoldCreateAPI(root, controllerOnly('captain-backup')),
        /"captainbackup" conflicts with existing controller "captain-backup"/,
      ],
      [
        'no name once the kind has named controllers',
        (root) => scaffoldCreateAPI(root, controllerOnly('captain-backup')),
        /already has named controllers \(captain, captain-backup\); pass --controller-name/,
      ],
    ];
    const names = ['Captain_Backup', 'captain', 'captain-backup', 'captainbackup', undefined];
    it.each(refusals.map((r, i) => ({ what: r[0], before: r[1], error: r[2], name: names[i] })))(
      '$what',
      ({ before, error, name }) => {
        const root = projectWithCaptain();
        before(root);
        const tree = snapshotTree(root);
        expect(() => scaffoldCreateAPI(root, controllerOnly(name))).toThrow(error);
        expect(snapshotTree(root)).toEqual(tree);
      },
    );

    it('a name with --controller=false', () => {
      const root = projectWithCaptain();
      const tree = snapshotTree(root);
      expect(() =>
        scaffoldCreateAPI(root, { ...controllerOnly('backup'), controller: false, resource: true, force: true }),
      ).toThrow(/--controller-name names a controller to scaffold/);
      expect(snapshotTree(root)).toEqual(tree);
    });
  });
});
