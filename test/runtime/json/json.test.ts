import { describe, expect, it } from 'vitest';
import { deepCopy, deepEqual, isObject, jsonClone } from '../../../src/runtime/json/index.js';

describe('src/json', () => {
  it('compares JSON values structurally, members holding undefined counting as absent', () => {
    expect(deepEqual({ a: [1, { b: 'x' }] }, { a: [1, { b: 'x' }] })).toBe(true);
    expect(deepEqual({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(deepEqual({ a: 1 }, { a: 1, b: null })).toBe(false);
    expect(deepEqual([1, 2], { 0: 1, 1: 2 })).toBe(false);
    expect(deepEqual({ a: 1 }, { b: 1 })).toBe(false);
  });

  it('tells plain objects from arrays and null', () => {
    expect([isObject({}), isObject([]), isObject(null), isObject('x')]).toEqual([true, false, false, false]);
  });

  it('copies through JSON, as an object travels on the wire', () => {
    const src = { a: { b: 1 }, u: undefined, f: () => 1 };
    const copy = jsonClone(src);
    expect(copy).toEqual({ a: { b: 1 } });
    expect(copy.a).not.toBe(src.a);
  });

  it('deep-copies a JSON tree: equal, and no object or array shared with the original', () => {
    const original = JSON.parse(
      '{"metadata":{"name":"a","labels":{"x":"1"},"__proto__":{"polluted":true}},"spec":{"list":[{"n":1},[2,3],null,true,"s"]}}',
    ) as Record<string, unknown>;
    const copy = deepCopy(original);
    expect(copy).toEqual(original);
    const objects = (v: unknown, out: unknown[] = []): unknown[] => {
      if (typeof v === 'object' && v !== null) {
        out.push(v);
        for (const c of Object.values(v)) objects(c, out);
      }
      return out;
    };
    const shared = objects(copy).filter((o) => objects(original).includes(o));
    expect(shared).toEqual([]);
    // A member named __proto__ stays a member and does not become the copy's prototype.
    const meta = copy.metadata as Record<string, unknown>;
    expect(Object.getPrototypeOf(meta)).toBe(Object.prototype);
    expect(Object.hasOwn(meta, '__proto__')).toBe(true);
    expect((meta as { polluted?: boolean }).polluted).toBeUndefined();
    // What is not plain JSON is copied too.
    const at = new Date(0);
    const withDate = deepCopy({ at });
    expect(withDate.at).toEqual(at);
    expect(withDate.at).not.toBe(at);
  });
});
