/** Type forms a CRD schema cannot describe are named in TypeScript's words, never by ts.SyntaxKind's names. */
import type * as T from 'typescript';
import { describe, expect, it } from 'vitest';
import { unsupportedTypeMessage } from '../../src/crd/unsupported-types.js';
import { ts } from '../../src/markers/typescript.js';

function message(type: string): string {
  const source = ts.createSourceFile('x.ts', `type X = ${type};`, ts.ScriptTarget.Latest, true);
  const alias = source.statements[0] as T.TypeAliasDeclaration;
  return unsupportedTypeMessage(alias.type, source);
}

const KIND_NAMES = new Set(Object.keys(ts.SyntaxKind).filter((k) => /^[A-Z]/.test(k) && !['Record'].includes(k)));

describe('unsupportedTypeMessage', () => {
  it('tells how to import a type by name instead of an import type', () => {
    expect(message('import("./x.js").T')).toBe(
      `import("./x.js").T types are not supported; import the type by name (import type { T } from './x.js') and use T`,
    );
    expect(message('import("./x.js").ns.T')).toMatch(/import type \{ ns \} from '\.\/x\.js'\) and use ns\.T$/);
  });

  it.each([
    ['import("./x.js").T', /^import\("\.\/x\.js"\)\.T types are not supported/],
    ['typeof spec', /^typeof types \(typeof spec\) are not supported/],
    ["Spec['name']", /^indexed access types \(Spec\['name'\]\) are not supported/],
    ['A extends B ? C : D', /^conditional types/],
    ['{ [K in Keys]: string }', /^mapped types/],
    [
      'keyof Spec',
      /^keyof types \(keyof Spec\) are not supported in CRD schemas: write the keys as a union of string literals/,
    ],
    ['unique symbol', /^unique types/],
    ['symbol', /^symbol does not survive JSON/],
    ['this', /^this types/],
    ['`a${string}`', /^the type `a\$\{string\}` is not supported/],
  ])('words %s as TypeScript does, with no compiler-internal name', (type, expected) => {
    const text = message(type);
    expect(text).toMatch(expected);
    const leaked = text.split(/[^A-Za-z]+/).filter((w) => KIND_NAMES.has(w) && /[a-z][A-Z]/.test(w));
    expect(leaked).toEqual([]);
  });
});
