import { describe, expect, it } from 'vitest';
import { ListDecodeError, ListStreamDecoder, type DecodedList } from '../../../src/runtime/rest/list-decoder.js';

/** Decodes `text` fed in the given chunks and returns what a plain JSON.parse + split would. */
function decode(chunks: Buffer[]): { envelope: Record<string, unknown>; items: unknown[] } {
  const d = new ListStreamDecoder();
  for (const c of chunks) d.write(c);
  return d.end();
}

function expected(text: string): { envelope: Record<string, unknown>; items: unknown[] } {
  const doc = JSON.parse(text) as Record<string, unknown>;
  const items = Array.isArray(doc.items) ? (doc.items as unknown[]) : [];
  return { envelope: Array.isArray(doc.items) ? { ...doc, items: [] } : doc, items };
}

/** Every split of the body into two chunks, then runs of fixed-size chunks. */
function splits(text: string): Buffer[][] {
  const b = Buffer.from(text);
  const out: Buffer[][] = [[b]];
  for (let i = 1; i < b.length; i++) out.push([b.subarray(0, i), b.subarray(i)]);
  for (const size of [1, 2, 3, 7, 64]) {
    const chunks: Buffer[] = [];
    for (let i = 0; i < b.length; i += size) chunks.push(b.subarray(i, i + size));
    out.push(chunks);
  }
  return out;
}

const tricky = {
  apiVersion: 'example.com/v1',
  kind: 'WidgetList',
  metadata: { resourceVersion: '42', continue: 'eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ', items: ['not', 'the', 'items'] },
  items: [
    {
      metadata: { name: 'a', annotations: { q: 'say "hi" {not [a] bracket}', b: 'back\\slash\\', e: 'end\\\\"' } },
      spec: { items: [1, [2, [3]]] },
    },
    { metadata: { name: 'ü-ß-日本-😀' }, spec: { s: '\\"', t: '\u2028\n\t', n: -1.5e3, z: null, f: false } },
    { metadata: { name: 'c' }, data: { items: '{"items":[]}' } },
  ],
  after: { ok: true },
};

describe('ListStreamDecoder', () => {
  const docs: Record<string, string> = {
    'tricky strings, nested items keys, multi-byte characters': JSON.stringify(tricky),
    'pretty-printed': JSON.stringify(tricky, null, 2),
    'items first': JSON.stringify({ items: [{ a: 1 }, { b: [2] }], kind: 'List' }),
    'no items': JSON.stringify({ kind: 'List', metadata: {} }),
    'empty items': '{"kind":"List","items":[],"metadata":{"resourceVersion":"1"}}',
    'null items': '{"kind":"List","items":null}',
    'scalar, string and array items': ' { "items" : [ 1 , "x\\"y" , null , [ {"k":"v"} ] , -2.5e-1 , true ] } ',
    'items is an object': '{"items":{"items":[1]},"x":[{"a":"b"}]}',
  };
  for (const [name, text] of Object.entries(docs)) {
    it(`decodes ${name} the same however the body is split`, () => {
      const want = expected(text);
      for (const chunks of splits(text)) expect(decode(chunks)).toEqual(want);
    });
  }

  it('decodes random lists the same as JSON.parse, cut into random chunks (escapes, scalars and keys across cuts)', () => {
    // A seeded generator (mulberry32), so a failure repeats.
    let seed = 0x5eed;
    const rand = (): number => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const pick = <V>(xs: V[]): V => xs[Math.floor(rand() * xs.length)]!;
    const str = (): string =>
      Array.from({ length: Math.floor(rand() * (rand() < 0.2 ? 90 : 12)) }, () =>
        pick(['a', '\\', '"', '\\"', 'ü', '日', '}', ']', ',']),
      ).join('');
    const value = (depth: number): unknown => {
      const r = rand();
      if (depth > 2 || r < 0.3) return pick([str(), Math.floor(rand() * 1e6) - 5e5, -1.5e-3, true, false, null]);
      if (r < 0.6) return Array.from({ length: Math.floor(rand() * 4) }, () => value(depth + 1));
      return Object.fromEntries(Array.from({ length: Math.floor(rand() * 4) }, () => [str(), value(depth + 1)]));
    };
    for (let doc = 0; doc < 400; doc++) {
      const list = {
        kind: str(),
        metadata: { resourceVersion: String(doc), [str()]: value(1) },
        items: Array.from({ length: Math.floor(rand() * 6) }, () => value(1)),
        [str()]: value(1),
      };
      const text = JSON.stringify(list, null, rand() < 0.3 ? 1 : undefined);
      const b = Buffer.from(text);
      const chunks: Buffer[] = [];
      for (let i = 0; i < b.length;) {
        const size = 1 + Math.floor(rand() * (rand() < 0.5 ? 4 : 40));
        chunks.push(b.subarray(i, i + size));
        i += size;
      }
      expect(decode(chunks)).toEqual(expected(text));
    }
  });

  describe('with omitManagedFields', () => {
    const fields = [{ manager: 'm', operation: 'Update', fieldsV1: { 'f:data': { '.': {}, 'f:x': {} } } }];
    const list = {
      kind: 'List',
      metadata: { resourceVersion: '9', managedFields: 'the list envelope keeps its own' },
      items: [
        { metadata: { name: 'middle', managedFields: fields, uid: 'u' }, data: { managedFields: '[x]' } },
        { metadata: { managedFields: fields, name: 'first' } },
        { metadata: { managedFields: [] } },
        { metadata: { name: 'last', managedFields: fields } },
        { metadata: { name: 'null', managedFields: null } },
        { spec: { managedFields: fields, template: { metadata: { managedFields: fields } } }, metadata: { name: 's' } },
        { apiVersion: 'v1', kind: 'K', metadata: { name: 'after', labels: { a: '{"managedFields":[' } } },
        'a string item',
        7,
      ],
    };
    /** What omitting managedFields should leave: items without their metadata.managedFields arrays. */
    const stripped = (items: unknown[]): unknown[] =>
      items.map((item) => {
        const meta = (item as { metadata?: Record<string, unknown> } | null)?.metadata;
        if (!meta || !Array.isArray(meta.managedFields)) return item;
        const { managedFields: _dropped, ...rest } = meta;
        return { ...(item as object), metadata: rest };
      });
    const omitting = (chunks: Buffer[]): DecodedList => {
      const d = new ListStreamDecoder(undefined, { omitManagedFields: true });
      for (const c of chunks) d.write(c);
      return d.end();
    };

    it("leaves out each item's metadata.managedFields array, and nothing else, from a compact body in one chunk", () => {
      const text = JSON.stringify(list);
      const out = omitting([Buffer.from(text)]);
      expect(out.items).toEqual(stripped(list.items));
      expect(out.envelope).toEqual({ ...list, items: [] });
    });

    it('never changes anything else however the body is cut (an item it cannot tell about is parsed whole)', () => {
      const text = JSON.stringify(list);
      for (const chunks of splits(text)) {
        const out = omitting(chunks);
        expect(stripped(out.items)).toEqual(stripped(list.items));
        expect(out.envelope).toEqual({ ...list, items: [] });
      }
    });

    it('parses a pretty-printed body whole', () => {
      const text = JSON.stringify(list, null, 2);
      expect(omitting([Buffer.from(text)]).items).toEqual(list.items);
    });
  });

  describe('with typeMeta', () => {
    const typeMeta = { apiVersion: 'v1', kind: 'ConfigMap' };
    const list = {
      kind: 'ConfigMapList',
      apiVersion: 'v1',
      metadata: { resourceVersion: '9' },
      items: [
        { metadata: { name: 'a', managedFields: [{ manager: 'm' }] }, data: { apiVersion: 'not this one' } },
        { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'own' } },
        { metadata: { name: 'kind only' }, kind: 'Other' },
        {},
        'a string item',
      ],
    };
    const typed = (chunks: Buffer[], omitManagedFields = false): DecodedList => {
      const d = new ListStreamDecoder(undefined, { typeMeta, omitManagedFields });
      for (const c of chunks) d.write(c);
      return d.end();
    };
    // What the items should be: apiVersion and kind first (as the object's own members), an item's own winning.
    const want = (items: unknown[]): unknown[] =>
      items.map((item) =>
        item !== null && typeof item === 'object' && Object.keys(item).length > 0 ? { ...typeMeta, ...item } : item,
      );

    it("gives each object item apiVersion and kind as its first members, an item's own winning, however the body is cut", () => {
      for (const text of [
        JSON.stringify(list),
        JSON.stringify(list, null, 2),
        JSON.stringify(list).replace('{}', '{ }'),
      ]) {
        for (const chunks of splits(text)) {
          const out = typed(chunks);
          expect(out.items).toEqual(want(list.items));
          expect(Object.keys(out.items[0] as object)).toEqual(['apiVersion', 'kind', 'metadata', 'data']);
          expect(out.envelope).toEqual({ ...list, items: [] });
        }
      }
    });

    it('does so beside omitManagedFields', () => {
      const out = typed([Buffer.from(JSON.stringify(list))], true);
      expect(out.items[0]).toEqual({ ...typeMeta, metadata: { name: 'a' }, data: { apiVersion: 'not this one' } });
      expect(Object.keys(out.items[0] as object)).toEqual(['apiVersion', 'kind', 'metadata', 'data']);
    });
  });

  it('parses each item as soon as its last byte arrives', () => {
    const d = new ListStreamDecoder();
    d.write(Buffer.from('{"kind":"List","items":[{"a":1},{"b"'));
    expect(d.items).toEqual([{ a: 1 }]);
    d.write(Buffer.from(':2}'));
    expect(d.items).toEqual([{ a: 1 }, { b: 2 }]);
    d.write(Buffer.from(']}'));
    expect(d.end().envelope).toEqual({ kind: 'List', items: [] });
  });

  it('hands each item to its item function as it is parsed, in order, and keeps what that returns', () => {
    const seen: unknown[] = [];
    const d = new ListStreamDecoder((item) => {
      seen.push(item);
      return { wrapped: item };
    });
    d.write(Buffer.from('{"kind":"List","items":[{"a":1},{"b"'));
    expect(seen).toEqual([{ a: 1 }]);
    d.write(Buffer.from(':2},3]}'));
    expect(seen).toEqual([{ a: 1 }, { b: 2 }, 3]);
    expect(d.end().items).toEqual([{ wrapped: { a: 1 } }, { wrapped: { b: 2 } }, { wrapped: 3 }]);
  });

  it('rejects a body that is not a JSON object, or ends early', () => {
    expect(() => decode([Buffer.from('[1,2]')])).toThrow(ListDecodeError);
    expect(() => decode([Buffer.from('{"items":[{"a":1}')])).toThrow(/ended inside a JSON value/);
    expect(() => decode([Buffer.from('{"kind":"List","items":[]')])).toThrow(ListDecodeError);
    expect(() => decode([Buffer.from('{"kind":List}')])).toThrow(/not JSON/);
    expect(() => decode([Buffer.from('{"items":[{"a":1}}]}')])).toThrow();
  });
});
