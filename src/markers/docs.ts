/**
 * Descriptions from comments, processed as controller-gen does (pkg/markers/zip.go extractDoc on top of Go's
 * CommentGroup.Text): comment syntax and the first space of each line removed, marker lines removed, trailing
 * spaces trimmed, leading/trailing blank lines dropped, runs of blank lines collapsed, lines starting with TODO
 * dropped and a line starting with `---` ending the text (both only outside ``` / ~~~ fences).
 */

/** One comment as written in the source, e.g. `// foo` or `/** foo *\/`. */
export interface RawComment {
  text: string;
}

const markerLine = /^\s*\+/;
// Tool directives are not documentation (Go drops `//go:` lines the same way).
const directive = /^\/\/\s*(eslint-|eslint |prettier-ignore|@ts-|istanbul |c8 |tslint:)/;
// Go's own directives (go/ast isDirective), dropped as Go drops them, so a Go comment ported verbatim (`//nolint:lll`,
// `//go:generate`) gives the same description: `//word:x` with no space, and `//line `, `//extern `, `//export `.
const goDirective = /^\/\/([a-z0-9]+:[a-z0-9]|line |extern |export )/;

/** The text lines of a comment group, comment syntax removed, markers included. */
export function commentLines(comments: readonly RawComment[]): string[] {
  const lines: string[] = [];
  for (const c of comments) {
    if (c.text.startsWith('//')) {
      if (directive.test(c.text) || goDirective.test(c.text)) continue;
      const body = c.text.slice(2);
      lines.push(body.startsWith(' ') ? body.slice(1) : body);
      continue;
    }
    const jsdoc = c.text.startsWith('/**') && c.text !== '/**/';
    const inner = c.text.slice(jsdoc ? 3 : 2, -2);
    const rows = inner.split(/\r?\n/);
    rows.forEach((row, i) => {
      let line = row;
      if (jsdoc) {
        // ` * text` -> `text`: the JSDoc gutter and one space, keeping further indentation like `//` comments do
        const m = /^\s*\*(?!\/) ?/.exec(line);
        if (m && (i > 0 || line.trimStart().startsWith('*'))) line = line.slice(m[0].length);
        else if (i === 0) line = line.replace(/^ /, '');
      } else {
        line = line.trim();
      }
      lines.push(line);
    });
  }
  return lines;
}

/** The description of a declaration from its doc comments. */
export function extractDoc(comments: readonly RawComment[]): string {
  const lines = commentLines(comments)
    .filter((l) => !markerLine.test(l))
    .map((l) => l.replace(/\s+$/, ''));
  // CommentGroup.Text: drop leading/trailing blank lines, collapse runs of blank lines
  const kept: string[] = [];
  for (const l of lines) {
    if (l === '' && (kept.length === 0 || kept[kept.length - 1] === '')) continue;
    kept.push(l);
  }
  while (kept.length > 0 && kept[kept.length - 1] === '') kept.pop();
  const out: string[] = [];
  let inFence = false;
  for (const line of kept) {
    if (line.startsWith('```') || line.startsWith('~~~')) inFence = !inFence;
    if (!inFence) {
      if (line.startsWith('TODO')) continue;
      if (line.startsWith('---')) break;
    }
    out.push(line);
  }
  return out.join('\n');
}
