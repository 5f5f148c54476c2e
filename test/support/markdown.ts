/** Reading the fenced code blocks of Markdown documents, for tests that keep docs and code from drifting apart. */
import { shellWords } from '../../scripts/lib/tutorial.js';

/** One fenced code block: its info string split into language and the rest, its text, and where it starts. */
export interface CodeBlock {
  lang: string;
  /** The words after the language in the info string, e.g. ['partial'] for ```ts partial. */
  attributes: string[];
  text: string;
  /** The 1-based line of the opening fence. */
  line: number;
}

/** The fenced (```) code blocks of a Markdown document, in order. Indented and ~~~ fences are not used in our docs. */
export function codeBlocks(markdown: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,})\s*(\S*)\s*(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const [, indent, fence, lang, rest] = open as unknown as [string, string, string, string, string];
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && !new RegExp(`^\\s*${fence}\\s*$`).test(lines[j]!)) {
      body.push(lines[j]!.startsWith(indent) ? lines[j]!.slice(indent.length) : lines[j]!);
      j++;
    }
    if (j === lines.length) throw new Error(`line ${i + 1}: a code block that is never closed`);
    blocks.push({ lang, attributes: rest.split(/\s+/).filter((w) => w !== ''), text: body.join('\n'), line: i + 1 });
    i = j;
  }
  return blocks;
}

/** The words of a shell command line, as sh would split them (the tutorial's reader splits them so too). */
export { shellWords };

/**
 * The commands of a section's ```sh blocks (those quoted with `> ` too), from its heading to the next heading of any
 * level, as a newcomer types them: one per line (a `\` continues it), `a && b` is two, comments dropped; `export
 * NAME=value` is kept whole, since its value may name a variable ($PWD) for the shell.
 */
export function sectionShCommands(markdown: string, heading: string, file = 'the page'): string[][] {
  const start = markdown.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`${file} has no heading "${heading}"`);
  const body = markdown.slice(start + heading.length + 2);
  const next = body.search(/^#+ /m);
  const unquoted = (next < 0 ? body : body.slice(0, next)).replace(/^> ?/gm, '');
  return codeBlocks(unquoted)
    .filter((b) => b.lang === 'sh')
    .flatMap((b) => b.text.replace(/\\\n\s*/g, '').split('\n'))
    .map((line) => line.replace(/\s+#\s.*$/, '').trim())
    .filter((line) => line !== '')
    .flatMap((line) => line.split(' && ').map(commandWords));
}

function commandWords(command: string): string[] {
  const exported = /^export (\w+=\S+)$/.exec(command);
  return exported ? ['export', exported[1]!] : shellWords(command);
}
