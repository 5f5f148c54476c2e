import { describe, expect, it } from 'vitest';
import { createJsonPatch } from '../../../src/runtime/webhook/index.js';
import type { JsonPatchOperation } from '../../../src/runtime/client/index.js';
import { mulberry32 } from '../../support/fuzz.js';

/** RFC 6902 application of add/remove/replace, written from the RFC, to check patches independently. */
function applyPatch(doc: unknown, ops: JsonPatchOperation[]): unknown {
  let root = structuredClone(doc);
  for (const op of ops) {
    if (op.path === '') {
      if (op.op === 'replace' || op.op === 'add') root = structuredClone(op.value);
      else throw new Error(`unsupported root op ${op.op}`);
      continue;
    }
    const tokens = op.path
      .slice(1)
      .split('/')
      .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
    const last = tokens.pop()!;
    let parent = root as Record<string, unknown> | unknown[];
    for (const t of tokens)
      parent = (Array.isArray(parent) ? parent[Number(t)] : parent[t]) as Record<string, unknown> | unknown[];
    if (Array.isArray(parent)) {
      const i = last === '-' ? parent.length : Number(last);
      if (op.op === 'add') {
        if (i > parent.length) throw new Error(`add past the end at ${op.path}`);
        parent.splice(i, 0, structuredClone(op.value));
      } else if (op.op === 'remove') {
        if (i >= parent.length) throw new Error(`remove of a missing element at ${op.path}`);
        parent.splice(i, 1);
      } else if (op.op === 'replace') {
        if (i >= parent.length) throw new Error(`replace of a missing element at ${op.path}`);
        parent[i] = structuredClone(op.value);
      } else throw new Error(`unexpected op ${op.op}`);
    } else {
      if (op.op === 'add') parent[last] = structuredClone(op.value);
      else if (op.op === 'remove') {
        if (!Object.hasOwn(parent, last)) throw new Error(`remove of a missing member at ${op.path}`);
        delete parent[last];
      } else if (op.op === 'replace') {
        if (!Object.hasOwn(parent, last)) throw new Error(`replace of a missing member at ${op.path}`);
        parent[last] = structuredClone(op.value);
      } else throw new Error(`unexpected op ${op.op}`);
    }
  }
  return root;
}

const KEYS = ['a', 'b', 'c', 'x/y', 'm~n', '~1', '', 'spec', 'é'];

function randomValue(r: () => number, depth: number): unknown {
  const k = r();
  if (depth <= 0 || k < 0.35) {
    const p = r();
    return p < 0.25
      ? Math.floor(r() * 5)
      : p < 0.5
        ? String.fromCharCode(97 + Math.floor(r() * 3))
        : p < 0.7
          ? r() < 0.5
          : p < 0.8
            ? null
            : '';
  }
  if (k < 0.65) return Array.from({ length: Math.floor(r() * 4) }, () => randomValue(r, depth - 1));
  const o: Record<string, unknown> = {};
  for (const key of KEYS) if (r() < 0.4) o[key] = randomValue(r, depth - 1);
  return o;
}

/** A variation of `v`: some members changed, added or removed, arrays grown or shrunk. */
function mutate(r: () => number, v: unknown, depth: number): unknown {
  if (r() < 0.15) return randomValue(r, depth);
  if (Array.isArray(v)) {
    const out = v.map((e) => (r() < 0.3 ? mutate(r, e, depth - 1) : e));
    if (r() < 0.3) out.push(randomValue(r, depth - 1));
    if (r() < 0.3) out.splice(Math.floor(r() * (out.length + 1)), 1);
    return out;
  }
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, e] of Object.entries(v)) {
      if (r() < 0.15) continue;
      out[key] = r() < 0.3 ? mutate(r, e, depth - 1) : e;
    }
    for (const key of KEYS) if (!(key in out) && r() < 0.1) out[key] = randomValue(r, depth - 1);
    return out;
  }
  return r() < 0.5 ? v : randomValue(r, depth);
}

describe('createJsonPatch', () => {
  it('is empty for equal documents', () => {
    const doc = { metadata: { name: 'a', labels: { x: '1' } }, spec: { list: [1, { b: true }] } };
    expect(createJsonPatch(doc, structuredClone(doc))).toEqual([]);
  });

  it('adds, replaces and removes object members', () => {
    const ops = createJsonPatch({ spec: { a: 1, b: 2 } }, { spec: { a: 3, c: 4 } });
    expect(ops).toEqual([
      { op: 'remove', path: '/spec/b' },
      { op: 'replace', path: '/spec/a', value: 3 },
      { op: 'add', path: '/spec/c', value: 4 },
    ]);
  });

  it('escapes "~" and "/" in member names as RFC 6901 says', () => {
    const ops = createJsonPatch({ metadata: { labels: {} } }, { metadata: { labels: { 'example.com/a~b': 'v' } } });
    expect(ops).toEqual([{ op: 'add', path: '/metadata/labels/example.com~1a~0b', value: 'v' }]);
  });

  it('grows and shrinks arrays at the end, removing from the highest index first', () => {
    expect(createJsonPatch({ l: [1, 2] }, { l: [1, 2, 3, 4] })).toEqual([
      { op: 'add', path: '/l/2', value: 3 },
      { op: 'add', path: '/l/3', value: 4 },
    ]);
    expect(createJsonPatch({ l: [1, 2, 3, 4] }, { l: [1] })).toEqual([
      { op: 'remove', path: '/l/3' },
      { op: 'remove', path: '/l/2' },
      { op: 'remove', path: '/l/1' },
    ]);
  });

  it('replaces a value whose type changed, and distinguishes null from absent', () => {
    expect(createJsonPatch({ a: [1] }, { a: { b: 1 } })).toEqual([{ op: 'replace', path: '/a', value: { b: 1 } }]);
    expect(createJsonPatch({ a: null }, {})).toEqual([{ op: 'remove', path: '/a' }]);
    expect(createJsonPatch({}, { a: null })).toEqual([{ op: 'add', path: '/a', value: null }]);
  });

  it('produces a patch that turns the original into the new document, for 2,000 random pairs', () => {
    const r = mulberry32(20260822);
    for (let i = 0; i < 2000; i++) {
      const a = { metadata: { name: 'n' }, spec: randomValue(r, 4) };
      const b = mutate(r, a, 4);
      const ops = createJsonPatch(a, b);
      expect(applyPatch(a, ops), `pair ${i}: ${JSON.stringify(a)} -> ${JSON.stringify(b)}`).toEqual(b);
    }
  });

  it('reads a changed object as JSON.stringify writes it: undefined members absent, toJSON used, holes and NaN null', () => {
    const original = { spec: { keep: 1, drop: 'x', list: [1, 2, 3], when: '2020-01-01T00:00:00.000Z', n: 5 } };
    const current = {
      spec: {
        keep: 1,
        drop: undefined,
        list: [1, undefined, () => 3],
        when: new Date('2021-01-01T00:00:00Z'),
        n: NaN,
        added: { a: 1, b: undefined },
      },
    };
    const ops = createJsonPatch(original, current);
    expect(ops).toEqual([
      { op: 'remove', path: '/spec/drop' },
      { op: 'replace', path: '/spec/list/1', value: null },
      { op: 'replace', path: '/spec/list/2', value: null },
      { op: 'replace', path: '/spec/when', value: '2021-01-01T00:00:00.000Z' },
      { op: 'replace', path: '/spec/n', value: null },
      { op: 'add', path: '/spec/added', value: { a: 1, b: undefined } },
    ]);
    // What the API server receives is the patch as JSON, and applying it gives the object as JSON.
    expect(applyPatch(original, JSON.parse(JSON.stringify(ops)) as JsonPatchOperation[])).toEqual(
      JSON.parse(JSON.stringify(current)),
    );
  });

  it('leaves out a member that is undefined on both sides', () => {
    expect(createJsonPatch({ a: 1 }, { a: 1, b: undefined })).toEqual([]);
  });
});
