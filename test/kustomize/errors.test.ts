import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  kustomizeBuild,
  kustomizeBuildYaml,
  KustomizeError,
  parseImageArgument,
  setKustomizationImage,
} from '../../src/kustomize/index.js';
import { writeTree } from './fixtures.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'kubescaffold-kerr-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const cm = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  a: b\n`;

function buildError(files: Record<string, string>, dir = '.'): string {
  writeTree(root, files);
  try {
    kustomizeBuild(join(root, dir));
  } catch (e) {
    expect(e).toBeInstanceOf(KustomizeError);
    return (e as Error).message;
  }
  throw new Error('the build succeeded');
}

describe('scaffold build refuses what it cannot do, naming the field and the file', () => {
  it.each([
    ['vars', 'vars:\n- name: X\n  objref: {kind: ConfigMap, name: cm, apiVersion: v1}\n'],
    ['components', 'components:\n- ../c\n'],
    ['helmCharts', 'helmCharts:\n- name: x\n'],
    ['transformers', 'transformers:\n- t.yaml\n'],
    ['crds', 'crds:\n- crd.json\n'],
  ])('an unsupported field: %s', (field, text) => {
    const msg = buildError({ 'kustomization.yaml': `resources:\n- cm.yaml\n${text}`, 'cm.yaml': cm('cm') });
    expect(msg).toContain(`field "${field}" is not supported`);
    expect(msg).toContain('kustomization.yaml');
  });

  it('a misspelt field, with a suggestion', () => {
    const msg = buildError({ 'kustomization.yaml': 'resource:\n- cm.yaml\n', 'cm.yaml': cm('cm') });
    expect(msg).toMatch(/kustomization\.yaml has unknown field "resource" \(did you mean "resources"\?\)/);
  });

  it('an unknown field inside a patch', () => {
    const msg = buildError({
      'kustomization.yaml': 'resources:\n- cm.yaml\npatches:\n- path: p.yaml\n  targets:\n    kind: ConfigMap\n',
      'cm.yaml': cm('cm'),
    });
    expect(msg).toMatch(/patches\[0\] has unknown field "targets" \(did you mean "target"\?\)/);
  });

  it('a field of the wrong type', () => {
    const msg = buildError({ 'kustomization.yaml': 'resources:\n- cm.yaml\nnamePrefix: [a]\n', 'cm.yaml': cm('cm') });
    expect(msg).toContain('namePrefix must be a string');
  });

  it('a missing resource file', () => {
    const msg = buildError({ 'kustomization.yaml': 'resources:\n- missing.yaml\n' });
    expect(msg).toMatch(/resource "missing.yaml" does not exist/);
  });

  it('a file outside the kustomization directory', () => {
    const msg = buildError(
      { 'outside.yaml': cm('cm'), 'app/kustomization.yaml': 'resources:\n- ../outside.yaml\n' },
      'app',
    );
    expect(msg).toMatch(/"..\/outside.yaml" is outside/);
  });

  it('a directory without a kustomization', () => {
    const msg = buildError({ 'kustomization.yaml': 'resources:\n- sub\n', 'sub/cm.yaml': cm('cm') });
    expect(msg).toMatch(/no kustomization file in .*sub/);
  });

  it('a cycle of kustomizations', () => {
    const msg = buildError(
      { 'a/kustomization.yaml': 'resources:\n- ../b\n', 'b/kustomization.yaml': 'resources:\n- ../a\n' },
      'a',
    );
    expect(msg).toContain('makes a cycle');
  });

  it('the same object twice', () => {
    const msg = buildError({
      'kustomization.yaml': 'resources:\n- a.yaml\n- b.yaml\n',
      'a.yaml': cm('cm'),
      'b.yaml': cm('cm'),
    });
    expect(msg).toContain('ConfigMap/cm is listed twice');
  });

  it('a strategic-merge patch that matches nothing', () => {
    const msg = buildError({
      'kustomization.yaml': 'resources:\n- cm.yaml\npatches:\n- path: p.yaml\n',
      'cm.yaml': cm('cm'),
      'p.yaml': cm('other'),
    });
    expect(msg).toMatch(/no resource matches the strategic-merge patch for ConfigMap\/other/);
  });

  it('a JSON patch without a target, and one whose path is missing', () => {
    expect(
      buildError({
        'kustomization.yaml': 'resources:\n- cm.yaml\npatches:\n- path: p.yaml\n',
        'cm.yaml': cm('cm'),
        'p.yaml': '- op: add\n  path: /data/c\n  value: d\n',
      }),
    ).toMatch(/needs a target/);
    rmSync(root, { recursive: true, force: true });
    root = mkdtempSync(join(tmpdir(), 'kubescaffold-kerr-'));
    expect(
      buildError({
        'kustomization.yaml': 'resources:\n- cm.yaml\npatches:\n- path: p.yaml\n  target:\n    kind: ConfigMap\n',
        'cm.yaml': cm('cm'),
        'p.yaml': '- op: replace\n  path: /spec/missing\n  value: d\n',
      }),
    ).toMatch(
      /applying .*p\.yaml to ConfigMap\/cm .*replace operation does not apply: doc is missing path: "\/spec\/missing"/,
    );
  });

  it('a replacement whose source or target field is missing', () => {
    expect(
      buildError({
        'kustomization.yaml':
          'resources:\n- cm.yaml\nreplacements:\n- source: {kind: Secret, name: nope}\n  targets:\n  - select: {kind: ConfigMap}\n',
        'cm.yaml': cm('cm'),
      }),
    ).toMatch(/nothing is selected by the source \(kind Secret, name nope\)/);
    rmSync(root, { recursive: true, force: true });
    root = mkdtempSync(join(tmpdir(), 'kubescaffold-kerr-'));
    expect(
      buildError({
        'kustomization.yaml':
          'resources:\n- cm.yaml\nreplacements:\n- source: {kind: ConfigMap, name: cm, fieldPath: data.a}\n  targets:\n  - select: {kind: ConfigMap}\n    fieldPaths: [data.missing.deep]\n',
        'cm.yaml': cm('cm'),
      }),
    ).toMatch(/unable to find field "data.missing.deep" .*set options.create: true/);
  });
});

describe('sortOptions', () => {
  it('fifo keeps the input order, legacy puts namespaces and CRD-like kinds first', () => {
    const files = {
      'kustomization.yaml': 'resources:\n- all.yaml\n',
      'all.yaml': `${cm('z')}---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: ns\n`,
    };
    writeTree(root, files);
    expect(kustomizeBuild(root).map((o) => o.kind)).toEqual(['Namespace', 'ConfigMap']);
    writeFileSync(join(root, 'kustomization.yaml'), 'resources:\n- all.yaml\nsortOptions:\n  order: fifo\n');
    expect(kustomizeBuild(root).map((o) => o.kind)).toEqual(['ConfigMap', 'Namespace']);
  });
});

describe('kustomize edit set image', () => {
  it('parses the forms kustomize accepts', () => {
    expect(parseImageArgument('controller=example.com/op:v1')).toMatchObject({
      name: 'controller',
      newName: 'example.com/op',
      newTag: 'v1',
      digest: '',
    });
    expect(parseImageArgument('controller=example.com:5000/op@sha256:abc')).toMatchObject({
      name: 'controller',
      newName: 'example.com:5000/op',
      digest: 'sha256:abc',
    });
    expect(parseImageArgument('nginx:1.25')).toMatchObject({ name: 'nginx', newName: '', newTag: '1.25' });
    expect(() => parseImageArgument('controller')).toThrow(/invalid image/);
  });

  it('writes the images entry, keeping comments and other entries, and the build uses it', () => {
    writeTree(root, {
      'kustomization.yaml': '# the manager\nresources:\n- dep.yaml\nimages:\n- name: other\n  newTag: "2"\n',
      'dep.yaml':
        'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\nspec:\n  template:\n    spec:\n      containers:\n      - name: manager\n        image: controller:latest\n',
    });
    expect(setKustomizationImage(root, parseImageArgument('controller=example.com/op:v1'))).toBe(true);
    const text = readFileSync(join(root, 'kustomization.yaml'), 'utf8');
    expect(text).toContain('# the manager');
    expect(text).toMatch(
      /images:\n- name: controller\n {2}newName: example.com\/op\n {2}newTag: v1\n- name: other\n {2}newTag: "2"/,
    );
    expect(kustomizeBuildYaml(root)).toContain('image: example.com/op:v1');
    expect(setKustomizationImage(root, parseImageArgument('controller=example.com/op:v1'))).toBe(false);
  });
});
