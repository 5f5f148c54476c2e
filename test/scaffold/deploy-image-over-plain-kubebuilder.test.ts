/**
 * deploy-image over a plain API (issue 42's leftover), against the real kubebuilder v4.16.0: a plain Memcached, a plain
 * Guest, then `create api --plugins=deploy-image/v1-alpha` for Memcached (with --force here, which kubebuilder does not
 * need). kubebuilder adds the event recorder to Memcached's existing setup in main, where it stands; so must we, and
 * `alpha generate` must then give the same main again, on both sides.
 */
import { mkdirSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scaffold } from './alpha/cli-run.js';
import { tempProjectDir } from './helpers.js';
import { tempDir } from '../support/files.js';
import { findKubebuilder, goEnv } from '../support/kubebuilder.js';
import { onPath, peerAvailable, requirePeer } from '../support/peers.js';
import { GO_BUILD_MS } from '../support/limits.js';

const VERSION = 'v4.16.0';
const what = `deploy-image over a plain API against kubebuilder ${VERSION}`;
const available = peerAvailable(what, onPath('go') ? undefined : 'Go is not installed (it builds kubebuilder)');

const image = 'memcached:1.6.26-alpine';
const memcached = ['--group', 'cache', '--version', 'v1alpha1', '--kind', 'Memcached'];
const guest = ['--group', 'cache', '--version', 'v1', '--kind', 'Guest'];

/** The reconcilers main sets up, in order, each marked when it is given the event recorder. */
function goSetups(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/&controller\.(\w+)Reconciler\{([^}]*)\}/g)].map(
    (m) => `${m[1]}${m[2]!.includes('Recorder:') ? ' with recorder' : ''}`,
  );
}
function tsSetups(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^\s*new (\w+)Reconciler\((.*)\)\.setupWithManager\(mgr\);$/gm)].map(
    (m) => `${m[1]}${m[2]!.includes('getEventRecorderFor') ? ' with recorder' : ''}`,
  );
}

describe.skipIf(!available)(what, () => {
  let ours: { root: string; cleanup: () => void };
  let theirs: { path: string; remove: () => void };

  beforeAll(async () => {
    const kubebuilder = await requirePeer(what, () => findKubebuilder(VERSION));
    ours = tempProjectDir('project');
    await scaffold(ours.root, 'init', '--domain', 'example.com', '--skip-install');
    await scaffold(ours.root, 'create', 'api', ...memcached);
    await scaffold(ours.root, 'create', 'api', ...guest);
    await scaffold(
      ours.root,
      'create',
      'api',
      ...memcached,
      '--plugins=deploy-image/v1-alpha',
      `--image=${image}`,
      '--force',
    );
    await scaffold(join(ours.root, '..'), 'alpha', 'generate', '--input-dir', ours.root, '--output-dir', 'generated');

    theirs = tempDir('ks-kubebuilder-deploy-image-');
    const project = join(theirs.path, 'project');
    mkdirSync(project);
    // kubebuilder's create api and alpha generate run `make generate`, `make manifests`, fmt, vet and lint-fix as
    // best-effort steps, which download controller-gen and golangci-lint; none of them writes main.go, which is what
    // is compared, so a `make` that does nothing stands in for them.
    const bin = join(theirs.path, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'make'), '#!/bin/sh\nexit 0\n');
    chmodSync(join(bin, 'make'), 0o755);
    const env = { ...goEnv(), PATH: [bin, join(kubebuilder, '..'), process.env.PATH].join(delimiter) };
    const run = (args: string[], cwd: string) => execFileSync(kubebuilder, args, { cwd, env, stdio: 'pipe' });
    run(
      ['init', '--domain=example.com', '--repo=example.com/project', '--fetch-deps=false', '--skip-go-version-check'],
      project,
    );
    run(['create', 'api', ...memcached, '--resource', '--controller', '--make=false'], project);
    run(['create', 'api', ...guest, '--resource', '--controller', '--make=false'], project);
    run(
      [
        'create',
        'api',
        ...memcached,
        `--image=${image}`,
        '--plugins=deploy-image/v1-alpha',
        '--make=false',
        '--manifests=false',
      ],
      project,
    );
    run(['alpha', 'generate', '--input-dir=project', '--output-dir=generated'], theirs.path);
  }, GO_BUILD_MS);
  afterAll(() => {
    ours?.cleanup();
    theirs?.remove();
  });

  it("sets up the reconcilers in kubebuilder's order, Memcached's with the recorder where the plain one stood", () => {
    const want = goSetups(join(theirs.path, 'project/cmd/main.go'));
    expect(want).toEqual(['Memcached with recorder', 'Guest']);
    expect(tsSetups(join(ours.root, 'cmd/main.ts'))).toEqual(want);
  });

  it('gives the same main again under alpha generate, as kubebuilder does', () => {
    const want = goSetups(join(theirs.path, 'generated/cmd/main.go'));
    expect(want).toEqual(goSetups(join(theirs.path, 'project/cmd/main.go')));
    expect(readFileSync(join(ours.root, '..', 'generated/cmd/main.ts'), 'utf8')).toBe(
      readFileSync(join(ours.root, 'cmd/main.ts'), 'utf8'),
    );
    expect(tsSetups(join(ours.root, '..', 'generated/cmd/main.ts'))).toEqual(want);
  });
});
