// Removing comments from emitted JavaScript, for scripts/strip-js-comments.js. Comments are found with TypeScript's
// parser, so regular expressions and template strings are never mistaken for them, and every line stays where it
// was, so the source maps tsc wrote stay true.
import ts from 'typescript';

// Kept: the source map link, bundlers' purity annotations, and a #! line (a comment only to the scanner).
const KEEP = /^(\/\/# sourceMappingURL=|#!|\/\*\s*[@#]__(PURE|NO_SIDE_EFFECTS)__)/;

/** `text` with each comment's characters removed but its line breaks kept, and lines left blank emptied. */
export function stripComments(text, fileName = 'file.js') {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.JS);
  const ranges = [];
  const seen = new Set();
  const collect = (pos) => {
    if (seen.has(pos)) return;
    seen.add(pos);
    for (const get of [ts.getLeadingCommentRanges, ts.getTrailingCommentRanges]) {
      for (const r of get(text, pos) ?? []) {
        if (!KEEP.test(text.slice(r.pos, r.end))) ranges.push(r);
      }
    }
  };
  const visit = (node) => {
    collect(node.pos);
    collect(node.end);
    // Tokens are not all nodes of the tree: their trivia is reached through getChildren.
    for (const child of node.getChildren(source)) visit(child);
  };
  visit(source);
  if (ranges.length === 0) return text;
  const unique = [...new Map(ranges.map((r) => [r.pos, r])).values()].sort((a, b) => a.pos - b.pos);
  let out = '';
  let at = 0;
  for (const r of unique) {
    if (r.pos < at) continue;
    out += text.slice(at, r.pos) + '\n'.repeat((text.slice(r.pos, r.end).match(/\n/g) ?? []).length);
    at = r.end;
  }
  out += text.slice(at);
  return out.replace(/[ \t]+$/gm, '');
}
