/**
 * `create api --controller-name` against the real kubebuilder v4.16.0 running the same commands: a second controller
 * for one kind gives the same PROJECT `controllers:` list, the same controller file names, and the same class and
 * runtime name.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { scaffoldCreateAPI } from '../../src/scaffold/api.js';
import { initProject, tempProjectDir } from './helpers.js';
import { listFiles, tempDir } from '../support/files.js';
import { findKubebuilder, runWithGoEnv } from '../support/kubebuilder.js';
import { onPath, peerAvailable, requirePeer } from '../support/peers.js';
import { GO_BUILD_MS } from '../support/limits.js';

const VERSION = 'v4.16.0';
const what = `create api --controller-name against kubebuilder ${VERSION}`;
const available = peerAvailable(what, onPath('go') ? undefined : 'Go is not installed (it builds kubebuilder)');

const captain = { group: 'crew', version: 'v1', kind: 'Captain', namespaced: true, force: false };

/** The controller files (tests aside: Go has one suite per package, we have one test file per controller). */
const controllerFiles = (root: string, ext: string): string[] =>
  listFiles(root)
    .filter((p) => p.startsWith('internal/controller/') && p.endsWith(`_controller${ext}`))
    .map((p) => p.slice(0, -ext.length))
    .sort();

describe.skipIf(!available)(what, () => {
  let ours: { root: string; cleanup: () => void };
  let theirs: { path: string; remove: () => void };
  let theirRoot: string;

  beforeAll(async () => {
    const kubebuilder = await requirePeer(what, () => findKubebuilder(VERSION));
    ours = tempProjectDir('project');
    initProject(ours.root);
    scaffoldCreateAPI(ours.root, { ...captain, resource: true, controller: true });
    scaffoldCreateAPI(ours.root, { ...captain, resource: false, controller: true, controllerName: 'captain-backup' });
    theirs = tempDir('ks-kubebuilder-controller-name-');
    theirRoot = join(theirs.path, 'project');
    mkdirSync(theirRoot);
    const api = ['create', 'api', '--group=crew', '--version=v1', '--kind=Captain', '--make=false'];
    for (const args of [
      ['init', '--domain=example.com', '--repo=example.com/project', '--fetch-deps=false', '--skip-go-version-check'],
      [...api, '--resource=true', '--controller=true'],
      [...api, '--resource=false', '--controller=true', '--controller-name=captain-backup'],
    ])
      runWithGoEnv(kubebuilder, args, theirRoot);
  }, GO_BUILD_MS);
  afterAll(() => {
    ours?.cleanup();
    theirs?.remove();
  });

  it("records kubebuilder's controllers list in PROJECT, the legacy controller: true turned into its first entry", () => {
    const resources = (root: string): Array<Record<string, unknown>> =>
      (parse(readFileSync(join(root, 'PROJECT'), 'utf8')) as { resources: Array<Record<string, unknown>> }).resources;
    const want: Array<Record<string, unknown>> = resources(theirRoot).map((r) => ({ ...r, path: 'api/v1' }));
    expect(resources(ours.root)).toEqual(want);
    expect(want[0]!.controllers).toEqual([{ name: 'captain' }, { name: 'captain-backup' }]);
    expect(want[0]!.controller).toBeUndefined();
  });

  it("writes the controllers under kubebuilder's file names", () => {
    expect(controllerFiles(ours.root, '.ts')).toEqual(controllerFiles(theirRoot, '.go'));
    expect(controllerFiles(ours.root, '.ts')).toEqual([
      'internal/controller/captain_backup_controller',
      'internal/controller/captain_controller',
    ]);
  });

  it("gives the new controller kubebuilder's class and runtime name, and wires it in main", () => {
    const go = readFileSync(join(theirRoot, 'internal/controller/captain_backup_controller.go'), 'utf8');
    const ts = readFileSync(join(ours.root, 'internal/controller/captain_backup_controller.ts'), 'utf8');
    expect(go).toContain('type CaptainBackupReconciler struct');
    expect(go).toContain('Named("captain-backup")');
    expect(ts).toContain('export class CaptainBackupReconciler implements Reconciler');
    expect(ts).toContain(".named('captain-backup')");
    expect(readFileSync(join(theirRoot, 'cmd/main.go'), 'utf8')).toContain('(&controller.CaptainBackupReconciler{');
    const main = readFileSync(join(ours.root, 'cmd/main.ts'), 'utf8');
    expect(main).toContain(
      "import { CaptainBackupReconciler } from '../internal/controller/captain_backup_controller.js';",
    );
    expect(main).toContain('new CaptainBackupReconciler(mgr.getClient()).setupWithManager(mgr);');
    expect(main).toContain('new CaptainReconciler(mgr.getClient()).setupWithManager(mgr);');
  });
});
