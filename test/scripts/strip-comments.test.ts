import { describe, expect, it } from 'vitest';
import { stripComments } from '../../scripts/lib/strip-comments.js';

describe('stripComments (the runtime build drops comments from its JavaScript)', () => {
  it('removes line and block comments, keeping every line where it was', () => {
    const js = [
      '/**',
      ' * A doc comment.',
      ' */',
      'export function f(a) {',
      '    // why',
      '    return a + 1; // trailing',
      '}',
      '//# sourceMappingURL=f.js.map',
    ].join('\n');
    const out = stripComments(js);
    expect(out.split('\n')).toEqual([
      '',
      '',
      '',
      'export function f(a) {',
      '',
      '    return a + 1;',
      '}',
      '//# sourceMappingURL=f.js.map',
    ]);
  });

  it('leaves what only looks like a comment: in strings, templates and regular expressions', () => {
    const js = [
      "const url = 'http://example.com/*x*/';",
      'const t = `// not a comment ${url} /* nor this */`;',
      'const re = /\\/\\/ still code \\/*/g;',
      'const pure = /* @__PURE__ */ make();',
    ].join('\n');
    expect(stripComments(js)).toBe(js);
  });
});
