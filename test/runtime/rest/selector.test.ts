import { describe, expect, it } from 'vitest';
import { parseFieldSelector, parseSelector, selectorFromLabelSelector } from '../../../src/runtime/rest/selector.js';

describe('label selectors', () => {
  it('parses and matches the apimachinery grammar', () => {
    const s = parseSelector('app=web, tier in (a, b),!legacy,env!=prod,track');
    expect(s.matches({ app: 'web', tier: 'a', track: 'x' })).toBe(true);
    expect(s.matches({ app: 'web', tier: 'c', track: 'x' })).toBe(false);
    expect(s.matches({ app: 'web', tier: 'a', track: 'x', legacy: '' })).toBe(false);
    expect(s.matches({ app: 'web', tier: 'a', track: 'x', env: 'prod' })).toBe(false);
    expect(s.matches({ app: 'web', tier: 'a' })).toBe(false);
    expect(parseSelector('a==1').matches({ a: '1' })).toBe(true);
    expect(parseSelector('x notin (1)').matches({})).toBe(true);
    expect(parseSelector('n>3').matches({ n: '4' })).toBe(true);
    expect(parseSelector('n<3').matches({ n: '4' })).toBe(false);
    expect(parseSelector('').empty()).toBe(true);
  });

  it('rejects malformed selectors', () => {
    expect(() => parseSelector('a=b,,')).toThrow(/unable to parse/);
    expect(() => parseSelector('a in (b')).toThrow(/missing \)/);
  });

  it('converts metav1.LabelSelector: undefined matches nothing, {} everything', () => {
    expect(selectorFromLabelSelector(undefined).matches({})).toBe(false);
    expect(selectorFromLabelSelector({}).matches({ any: 'thing' })).toBe(true);
    const s = selectorFromLabelSelector({ matchExpressions: [{ key: 'k', operator: 'Exists' }] });
    expect(s.matches({ k: '' })).toBe(true);
    expect(s.toString()).toBe('k');
  });

  it('parses field selectors', () => {
    expect(parseFieldSelector('metadata.name=a,status.phase!=Running')).toEqual([
      { field: 'metadata.name', operator: '=', value: 'a' },
      { field: 'status.phase', operator: '!=', value: 'Running' },
    ]);
  });
});
