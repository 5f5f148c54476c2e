import { describe, expect, it } from 'vitest';
import { newImageValue, splitImage } from '../../src/kustomize/transform/images.js';
import { applyJsonPatch, decodeJsonPatch } from '../../src/kustomize/transform/jsonpatch.js';
import { parseLabelSelector } from '../../src/kustomize/transform/select.js';
import { resourcesToYaml } from '../../src/kustomize/output.js';
import { goTimestamp } from '../../src/kustomize/yaml.js';
import { compareYamlKeys } from '../../src/yaml/index.js';

describe('label selectors', () => {
  const labels = { app: 'web', tier: 'backend', version: '3' };
  it.each([
    ['app=web', true],
    ['app==web,tier=backend', true],
    ['app!=web', false],
    ['tier in (frontend, backend)', true],
    ['tier notin (backend)', false],
    ['missing notin (x)', true],
    ['app', true],
    ['!app', false],
    ['!missing', true],
    ['version>2', true],
    ['version<2', false],
  ])('%s matches: %s', (selector, expected) => {
    expect(parseLabelSelector(selector, 'test')(labels)).toBe(expected);
  });

  it('rejects a malformed selector, naming it', () => {
    expect(() => parseLabelSelector('app in web', 'kustomization.yaml: patches[0].target')).toThrow(
      /patches\[0\].target: invalid selector "app in web"/,
    );
  });
});

describe('images', () => {
  it.each([
    ['nginx', { name: 'nginx', tag: '', digest: '' }],
    ['nginx:1.25', { name: 'nginx', tag: '1.25', digest: '' }],
    ['registry:5000/team/app:v1@sha256:abc', { name: 'registry:5000/team/app', tag: 'v1', digest: 'sha256:abc' }],
    ['app@sha256:abc', { name: 'app', tag: '', digest: 'sha256:abc' }],
  ])('splits %s', (image, parts) => {
    expect(splitImage(image)).toEqual(parts);
  });

  it('rewrites only images whose name matches, tag or digest as asked', () => {
    const spec = { name: 'controller', newName: 'example.com/op', newTag: 'v1', digest: '', tagSuffix: '' };
    expect(newImageValue('controller:latest', spec)).toBe('example.com/op:v1');
    expect(newImageValue('controller-two:latest', spec)).toBeUndefined();
    expect(newImageValue('controller@sha256:x', { ...spec, newTag: '', digest: 'sha256:y' })).toBe(
      'example.com/op@sha256:y',
    );
  });
});

describe('JSON 6902 patches', () => {
  const doc = { spec: { args: ['a'], m: { k: 'v' } } };
  it('adds, appends, replaces, moves, copies and tests', () => {
    const ops = decodeJsonPatch(
      [
        { op: 'add', path: '/spec/args/0', value: 'first' },
        { op: 'add', path: '/spec/args/-', value: 'last' },
        { op: 'replace', path: '/spec/m/k', value: 'w' },
        { op: 'copy', from: '/spec/m', path: '/spec/n' },
        { op: 'move', from: '/spec/n/k', path: '/spec/moved~1key' },
        { op: 'test', path: '/spec/args/1', value: 'a' },
      ],
      'p.yaml',
    );
    expect(applyJsonPatch(doc, ops)).toEqual({
      spec: { args: ['first', 'a', 'last'], m: { k: 'w' }, n: {}, 'moved/key': 'w' },
    });
    expect(doc.spec.args).toEqual(['a']);
  });

  it('fails on a missing path or a failed test', () => {
    expect(() => applyJsonPatch(doc, decodeJsonPatch([{ op: 'remove', path: '/spec/nope' }], 'p'))).toThrow(
      /remove operation does not apply: doc is missing key/,
    );
    expect(() => applyJsonPatch(doc, decodeJsonPatch([{ op: 'add', path: '/x/y', value: 1 }], 'p'))).toThrow(
      /doc is missing path/,
    );
    expect(() => applyJsonPatch(doc, decodeJsonPatch([{ op: 'test', path: '/spec/m/k', value: 'z' }], 'p'))).toThrow(
      /testing value/,
    );
    expect(() => decodeJsonPatch([{ op: 'upsert', path: '/a' }], 'p.yaml')).toThrow(
      /p.yaml: operation 0 has unknown op "upsert"/,
    );
  });
});

describe('output as kustomize prints it', () => {
  it('orders keys as go-yaml v2 does', () => {
    const keys = ['b10', 'b9', 'a', 'B', '_x', 'a1', 'a01'];
    // What kubectl kustomize printed for these keys: other characters before letters, digit runs by value.
    expect([...keys].sort(compareYamlKeys)).toEqual(['_x', 'B', 'a', 'a1', 'a01', 'b9', 'b10']);
  });

  it('quotes what YAML 1.1 would read as another type, and folds long lines', () => {
    // Both as kubectl kustomize prints them: a line breaks at the first space past column 80.
    expect(resourcesToYaml([{ a: 'yes', b: '8080', c: '', d: 'plain', e: Array(20).fill('word').join(' ') }])).toBe(
      `a: "yes"\nb: "8080"\nc: ""\nd: plain\ne: ${Array(16).fill('word').join(' ')}\n  word word word word\n`,
    );
    expect(resourcesToYaml([{ l: ['- a', ['x'], {}], m: 'one\ntwo\n' }])).toBe(
      "l:\n- '- a'\n- - x\n- {}\nm: |\n  one\n  two\n",
    );
  });

  it('separates documents with ---, with none before the first', () => {
    expect(resourcesToYaml([{ a: 1 }, { b: [] }])).toBe('a: 1\n---\nb: []\n');
  });

  it('prints plain timestamps as Go does', () => {
    expect(goTimestamp('2021-1-2')).toBe('2021-01-02T00:00:00Z');
    expect(goTimestamp('2001-12-14 21:59:43.10')).toBe('2001-12-14T21:59:43.1Z');
    expect(goTimestamp('2001-12-14t21:59:43.10-05:00')).toBe('2001-12-14T21:59:43.1-05:00');
    expect(goTimestamp('2021-02-30')).toBeUndefined();
  });
});
