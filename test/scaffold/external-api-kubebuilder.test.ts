/**
 * `create api` for an external API against the real kubebuilder v4.16.0 (built from the Go module proxy, cached under
 * ~/.cache): the PROJECT entry is kubebuilder's, key for key, and the controller carries kubebuilder's RBAC markers.
 * (kubebuilder.test.ts compares whole projects with the version the other comparisons pin.)
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { scaffoldCreateAPI } from '../../src/scaffold/api.js';
import { initProject, tempProjectDir } from './helpers.js';
import { tempDir } from '../support/files.js';
import { findKubebuilder, runWithGoEnv } from '../support/kubebuilder.js';
import { onPath, peerAvailable, requirePeer } from '../support/peers.js';
import { GO_BUILD_MS } from '../support/limits.js';

const VERSION = 'v4.16.0';
const what = `external APIs against kubebuilder ${VERSION}`;
const available = peerAvailable(what, onPath('go') ? undefined : 'Go is not installed (it builds kubebuilder)');

const external = {
  group: 'cert-manager',
  version: 'v1',
  kind: 'Certificate',
  path: 'github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1',
  domain: 'io',
};

const rbacMarkers = (file: string): string[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('// +kubebuilder:rbac:'));

describe.skipIf(!available)(what, () => {
  let ours: { root: string; cleanup: () => void };
  let theirs: { path: string; remove: () => void };
  let theirRoot: string;

  beforeAll(async () => {
    const kubebuilder = await requirePeer(what, () => findKubebuilder(VERSION));
    ours = tempProjectDir('project');
    initProject(ours.root);
    scaffoldCreateAPI(ours.root, {
      group: external.group,
      version: external.version,
      kind: external.kind,
      resource: false,
      controller: true,
      namespaced: true,
      force: false,
      externalApiPath: external.path,
      externalApiDomain: external.domain,
    });
    theirs = tempDir('ks-kubebuilder-external-');
    theirRoot = join(theirs.path, 'project');
    mkdirSync(theirRoot);
    runWithGoEnv(
      kubebuilder,
      ['init', '--domain=example.com', '--repo=example.com/project', '--fetch-deps=false', '--skip-go-version-check'],
      theirRoot,
    );
    runWithGoEnv(
      kubebuilder,
      [
        'create',
        'api',
        `--group=${external.group}`,
        `--version=${external.version}`,
        `--kind=${external.kind}`,
        '--controller=true',
        '--resource=false',
        `--external-api-path=${external.path}`,
        `--external-api-domain=${external.domain}`,
        '--make=false',
      ],
      theirRoot,
    );
  }, GO_BUILD_MS);
  afterAll(() => {
    ours?.cleanup();
    theirs?.remove();
  });

  it("records the resource in PROJECT as kubebuilder's", () => {
    const resources = (root: string): unknown =>
      (parse(readFileSync(join(root, 'PROJECT'), 'utf8')) as { resources: unknown }).resources;
    expect(resources(ours.root)).toEqual(resources(theirRoot));
    expect(resources(ours.root)).toEqual([
      {
        controller: true,
        domain: 'io',
        external: true,
        group: 'cert-manager',
        kind: 'Certificate',
        path: external.path,
        version: 'v1',
      },
    ]);
  });

  it("gives the controller kubebuilder's RBAC markers for the external group", () => {
    const markers = rbacMarkers(join(ours.root, 'internal/controller/certificate_controller.ts'));
    expect(markers).toEqual(rbacMarkers(join(theirRoot, 'internal/controller/certificate_controller.go')));
    expect(markers[0]).toBe(
      '// +kubebuilder:rbac:groups=cert-manager.io,resources=certificates,verbs=get;list;watch;create;update;patch;delete',
    );
  });
});
