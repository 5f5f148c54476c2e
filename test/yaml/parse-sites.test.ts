/**
 * Every place the CLI parses YAML goes through the bounded reader: each is fed each bomb and must refuse it with a
 * user error naming the file, within a second. Then the CLI end to end: one line on stderr, no stack trace.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isUserError } from '../../src/errors.js';
import { kustomizeBuild, parseImageArgument, setKustomizationImage } from '../../src/kustomize/index.js';
import { loadProject } from '../../src/project/load.js';
import { parseProject } from '../../src/project/project.js';
import { parseCustomMetrics } from '../../src/scaffold/plugins/grafana/custom-metrics.js';
import { parseInstaller } from '../../src/scaffold/plugins/helm/manifests.js';
import { tempDir } from '../support/files.js';
import { writeTree } from '../kustomize/fixtures.js';
import { BOMBS, billionLaughs } from './bombs.js';

let dir: { path: string; remove: () => void };
beforeEach(() => (dir = tempDir('kubescaffold-bombs-')));
afterEach(() => dir.remove());

const cm = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n';

/** The parse sites, each given the bomb's text and returning what it made of it. */
const SITES: Array<[name: string, file: RegExp, parse: (bomb: string) => unknown]> = [
  [
    'PROJECT (parseProject)',
    /PROJECT/,
    (bomb) => {
      const r = parseProject(bomb);
      if (typeof r === 'string') throw new Error(r);
    },
  ],
  [
    'PROJECT (loadProject)',
    /PROJECT/,
    (bomb) => {
      writeFileSync(join(dir.path, 'PROJECT'), bomb);
      return loadProject(dir.path);
    },
  ],
  [
    'a kustomization',
    /kustomization\.yaml/,
    (bomb) => {
      writeTree(dir.path, { 'kustomization.yaml': bomb });
      return kustomizeBuild(dir.path);
    },
  ],
  [
    'a resource (a sample, a CRD)',
    /crd\.yaml/,
    (bomb) => {
      writeTree(dir.path, { 'kustomization.yaml': 'resources:\n- crd.yaml\n', 'crd.yaml': bomb });
      return kustomizeBuild(dir.path);
    },
  ],
  [
    'a patch',
    /patch\.yaml/,
    (bomb) => {
      writeTree(dir.path, {
        'kustomization.yaml': 'resources:\n- cm.yaml\npatches:\n- path: patch.yaml\n',
        'cm.yaml': cm,
        'patch.yaml': bomb,
      });
      return kustomizeBuild(dir.path);
    },
  ],
  [
    'the kustomization `--img` edits',
    /kustomization\.yaml/,
    (bomb) => {
      writeTree(dir.path, { 'kustomization.yaml': bomb });
      return setKustomizationImage(dir.path, parseImageArgument('controller=example.com/op:v1'));
    },
  ],
  [
    'the grafana custom-metrics config',
    /grafana\/custom-metrics\/config\.yaml/,
    (bomb) => parseCustomMetrics(bomb, 'grafana/custom-metrics/config.yaml'),
  ],
  ["the helm plugin's installer", /dist\/install\.yaml/, (bomb) => parseInstaller(bomb, 'dist/install.yaml', 'p')],
];

describe.each(SITES)('%s', (site, file, parse) => {
  it.each(BOMBS)('refuses %s within a second, naming the file', (_bomb, text, message) => {
    const bomb = text();
    const start = performance.now();
    let error: unknown;
    try {
      parse(bomb);
    } catch (err) {
      error = err;
    }
    const ms = performance.now() - start;
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(file);
    expect((error as Error).message).toMatch(message);
    // parseProject returns its message; the others throw a user error
    if (site !== 'PROJECT (parseProject)') expect(isUserError(error)).toBe(true);
    expect(ms).toBeLessThan(1000);
  });
});

const bin = fileURLToPath(new URL('../../bin/scaffold.js', import.meta.url));
const built = existsSync(fileURLToPath(new URL('../../dist/cli/index.js', import.meta.url)));

describe.skipIf(!built)('the CLI given a bomb', () => {
  it('prints one line naming the file and exits 1, without a stack trace', () => {
    writeFileSync(join(dir.path, 'PROJECT'), billionLaughs());
    const r = spawnSync(process.execPath, [bin, 'manifests'], { cwd: dir.path, encoding: 'utf8', timeout: 30_000 });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/PROJECT has excessive aliasing/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('refuses a deeply nested sample in `scaffold build`', () => {
    mkdirSync(join(dir.path, 'config', 'samples'), { recursive: true });
    writeTree(dir.path, {
      'config/samples/kustomization.yaml': 'resources:\n- sample.yaml\n',
      'config/samples/sample.yaml': BOMBS[2]![1](),
    });
    const r = spawnSync(process.execPath, [bin, 'build', 'config/samples'], {
      cwd: dir.path,
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/config\/samples\/sample\.yaml is nested more than \d+ levels deep/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});
