import { describe, expect, it } from 'vitest';
import { deepEqual, isObject, jsonClone } from '../../../src/runtime/json/index.js';

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
});
