/**
 * `create api --ssa` (kubebuilder's --ssa): a controller that writes its status through server-side apply with a
 * typed apply configuration, recorded in PROJECT so that a controller created later for the Kind, and `alpha
 * generate`, do the same.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadProject } from '../../src/project/load.js';
import { scaffoldCreateAPI, type CreateAPIOptions } from '../../src/scaffold/api.js';
import { replaySteps } from '../../src/scaffold/alpha/replay.js';
import { defaultInit, initProject, snapshotTree, tempProjectDir } from './helpers.js';
import { typeErrors } from '../support/typecheck.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function project(): string {
  const { root, cleanup } = tempProjectDir('crew');
  cleanups.push(cleanup);
  initProject(root);
  return root;
}

const captain = (over: Partial<CreateAPIOptions> = {}): CreateAPIOptions => ({
  group: 'crew',
  version: 'v1',
  kind: 'Captain',
  resource: true,
  controller: true,
  namespaced: true,
  force: false,
  ...over,
});

const controllerFile = 'internal/controller/captain_controller.ts';

describe('create api --ssa', () => {
  it('scaffolds a controller that applies its status condition as its own field owner, and compiles', () => {
    const root = project();
    scaffoldCreateAPI(root, captain({ ssa: true }));
    const controller = readFileSync(join(root, controllerFile), 'utf8');
    expect(controller).toContain("const FIELD_OWNER = 'captain-controller';");
    expect(controller).toContain('const status: ApplyConfiguration<Captain> = {');
    expect(controller).toContain(
      'await this.client.status().apply(CaptainResource, status, { fieldOwner: FIELD_OWNER });',
    );
    expect(typeErrors([join(root, controllerFile)])).toEqual([]);
    expect(loadProject(root).resources?.[0]?.api).toEqual({ crdVersion: 'v1', namespaced: true, ssa: true });
  });

  it('leaves the plain controller without server-side apply', () => {
    const root = project();
    scaffoldCreateAPI(root, captain());
    const controller = readFileSync(join(root, controllerFile), 'utf8');
    expect(controller).not.toContain('apply');
    expect(loadProject(root).resources?.[0]?.api).toEqual({ crdVersion: 'v1', namespaced: true });
  });

  it('gives a controller created later for an --ssa Kind server-side apply too', () => {
    const root = project();
    scaffoldCreateAPI(root, captain({ ssa: true, controller: false }));
    scaffoldCreateAPI(root, captain({ resource: false }));
    expect(readFileSync(join(root, controllerFile), 'utf8')).toContain('status().apply(');
    expect(loadProject(root).resources?.[0]).toMatchObject({ api: { ssa: true }, controller: true });
  });

  it('refuses --ssa without --resource, writing nothing', () => {
    const root = project();
    scaffoldCreateAPI(root, captain({ controller: false }));
    const before = snapshotTree(root);
    expect(() => scaffoldCreateAPI(root, captain({ resource: false, ssa: true }))).toThrow(/--ssa .* --resource=true/);
    expect(snapshotTree(root)).toEqual(before);
  });

  it('is replayed by alpha generate from PROJECT', () => {
    const root = project();
    scaffoldCreateAPI(root, captain({ ssa: true }));
    const step = replaySteps(loadProject(root), defaultInit).find((s) => s.run === 'create api');
    expect(step?.argv).toContain('--ssa');
  });
});
