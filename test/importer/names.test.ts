/** How `scaffold import crd` names things: items of list properties in the singular, property keys TypeScript accepts. */
import { describe, expect, it } from 'vitest';
import { propertyKey, singular } from '../../src/importer/schema-to-types.js';

describe('import crd names', () => {
  it('names one item of a list property in the singular', () => {
    expect(
      ['listeners', 'policies', 'hostAliases', 'addresses', 'matches', 'status', 'ingress', 'tls', 'args'].map(
        singular,
      ),
    ).toEqual(['listener', 'policy', 'hostAlias', 'address', 'match', 'status', 'ingress', 'tls', 'arg']);
  });

  it('quotes property names that are not identifiers, escaping what a string literal cannot hold', () => {
    expect(['ship', '$ref', 'dash-name', "it's", 'line\nbreak', 'x\u2028y'].map(propertyKey)).toEqual([
      'ship',
      '$ref',
      "'dash-name'",
      "'it\\'s'",
      "'line\\nbreak'",
      "'x\\u2028y'",
    ]);
  });
});
