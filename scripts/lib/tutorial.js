// The CronJob tutorial (docs/tutorial) as steps a program can follow: the commands of its ```sh blocks and the code
// blocks it has the reader write, in reading order. Used by test/e2e/tutorial.test.ts, which follows it to the letter,
// and by scripts/tutorial-project.js, which writes the finished project (docs/tutorial/project) the same way.
//
// A code block the reader writes says where it goes on the line right before it, in one of these forms (the text
// between backticks is a file, or a whole line of it, as written there less its indentation):
//
//   In `F`, the whole file:                          the block is all of F (a new file, or a replacement)
//   In `F`, replace everything with:                 the same, said of a file whose first part the block is
//   In `F`, add at the end:                          append the block to F, after a blank line
//   In `F`, add after the line `L`:                  insert the block after the one line L of F
//   In `F`, replace the line `L` with:               the block takes the place of the one line L
//   In `F`, replace the lines from `A` to `B` with:  the block takes the place of line A through the first B after it
//   In `F`, delete these lines:                      the block's lines, as they are in F, are removed
//   From `F`, as the command wrote it:               nothing to write: the block must be in F as shown
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The chapter files of a tutorial folder (NN-name.md), in reading order. */
export function chapterFiles(tutorialDir) {
  return readdirSync(tutorialDir)
    .filter((f) => /^\d\d-.*\.md$/.test(f))
    .sort();
}

/** The fenced (```) code blocks of a Markdown page, with the last line of text before each. */
function fencedBlocks(markdown) {
  const blocks = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(`{3,})\s*(\S*)\s*(.*)$/.exec(lines[i]);
    if (!open) continue;
    const [, fence, lang, rest] = open;
    let j = i + 1;
    while (j < lines.length && lines[j].trimEnd() !== fence) j++;
    if (j === lines.length) throw new Error(`line ${i + 1}: a code block that is never closed`);
    let k = i - 1;
    while (k >= 0 && lines[k].trim() === '') k--;
    blocks.push({
      lang,
      attributes: rest.split(/\s+/).filter((w) => w !== ''),
      text: lines.slice(i + 1, j).join('\n'),
      line: i + 1,
      before: k >= 0 ? lines[k].trim() : '',
    });
    i = j;
  }
  return blocks;
}

const ANNOTATIONS = [
  [/^In `([^`]+)`, (?:the whole file|replace everything with):$/, (file) => ({ file, mode: 'whole' })],
  [/^In `([^`]+)`, add at the end:$/, (file) => ({ file, mode: 'append' })],
  [/^In `([^`]+)`, add after the line `(.+)`:$/, (file, anchor) => ({ file, mode: 'after', anchor })],
  [/^In `([^`]+)`, replace the line `(.+)` with:$/, (file, anchor) => ({ file, mode: 'replace', anchor, to: anchor })],
  [
    /^In `([^`]+)`, replace the lines from `(.+)` to `(.+)` with:$/,
    (file, anchor, to) => ({ file, mode: 'replace', anchor, to }),
  ],
  [/^In `([^`]+)`, delete these lines:$/, (file) => ({ file, mode: 'delete' })],
  [/^From `([^`]+)`, as the command wrote it:$/, (file) => ({ file, mode: 'shown' })],
];

/** Where a code block goes, from the line before it; undefined when that line is not an annotation. */
export function annotation(before) {
  for (const [pattern, make] of ANNOTATIONS) {
    const m = pattern.exec(before);
    if (m) return make(...m.slice(1));
  }
  return undefined;
}

/** The words of a shell command, split as sh would (quotes group; nothing is expanded: the tutorial uses none). */
export function shellWords(line) {
  const words = [];
  let word;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === ' ' || c === '\t') {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (c === '"' || c === "'") {
      const end = line.indexOf(c, i + 1);
      if (end < 0) throw new Error(`unclosed ${c} in: ${line}`);
      word = (word ?? '') + line.slice(i + 1, end);
      i = end;
    } else if ('|;<>$`\\*?(){}'.includes(c)) {
      throw new Error(`"${c}" needs a real shell, which this reader is not: ${line}`);
    } else {
      word = (word ?? '') + c;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}

/**
 * The steps of one chapter, in order: `command` steps (one per command of a ```sh block; `a && b` is two) and `edit`
 * steps (a code block and where it goes). A ts, js or yaml block without an annotation is an error naming the
 * chapter and line, so no code is shown that the reader is not told where to put.
 */
export function chapterSteps(chapter, markdown) {
  const steps = [];
  for (const block of fencedBlocks(markdown)) {
    const at = `${chapter}:${block.line}`;
    if (block.lang === 'sh') {
      block.text.split('\n').forEach((text, i) => {
        const line = text.replace(/\s+#\s.*$/, '').trim();
        if (line === '' || line.startsWith('#')) return;
        for (const part of line.split(' && ')) {
          const words = shellWords(part);
          const env = {};
          while (words[0] !== undefined && /^[A-Z_][A-Z0-9_]*=/.test(words[0])) {
            const [name, ...value] = words.shift().split('=');
            env[name] = value.join('=');
          }
          steps.push({ kind: 'command', chapter, line: block.line + 1 + i, env, words });
        }
      });
    } else if (['ts', 'js', 'yaml'].includes(block.lang)) {
      const where = annotation(block.before);
      if (!where)
        throw new Error(
          `${at}: a ${block.lang} block must say where it goes on the line before it, such as "In \`path\`, the whole file:" (see scripts/lib/tutorial.js)`,
        );
      steps.push({ kind: 'edit', chapter, line: block.line, lang: block.lang, text: block.text, ...where });
    }
  }
  return steps;
}

/** How a step is named in errors: the chapter and line, and the command or the file it writes. */
export function describeStep(step) {
  if (step.kind === 'command')
    return `${step.chapter}:${step.line} \`${[...Object.entries(step.env).map(([k, v]) => `${k}=${v}`), ...step.words].join(' ')}\``;
  return `${step.chapter}:${step.line} (${step.mode} ${step.file})`;
}

/** The index of the one line of `lines` that is `wanted` (indentation aside) from `from` on; throws unless exactly one. */
function findLine(lines, wanted, from, what, unique = true) {
  const hits = [];
  for (let i = from; i < lines.length; i++) if (lines[i].trim() === wanted.trim()) hits.push(i);
  if (hits.length === 0) throw new Error(`${what}: no line \`${wanted}\``);
  if (unique && hits.length > 1) throw new Error(`${what}: the line \`${wanted}\` is there ${hits.length} times`);
  return hits[0];
}

/**
 * The file's new text once the edit is applied to `current` (undefined: the file does not exist). Throws, naming the
 * step, when the edit does not apply: a missing file, or a line to find that is not there exactly once.
 */
export function applyEdit(step, current) {
  const what = describeStep(step);
  const block = step.text.endsWith('\n') ? step.text : `${step.text}\n`;
  if (step.mode === 'whole') return block;
  if (current === undefined) throw new Error(`${what}: ${step.file} does not exist`);
  // A part added at the end comes after a blank line, as a reader would leave one.
  if (step.mode === 'append') return current.trim() === '' ? block : `${current.trimEnd()}\n\n${block}`;
  const lines = current.split('\n');
  const blockLines = block.slice(0, -1).split('\n');
  if (step.mode === 'after') {
    const at = findLine(lines, step.anchor, 0, what);
    lines.splice(at + 1, 0, ...blockLines);
    return lines.join('\n');
  }
  if (step.mode === 'replace') {
    const from = findLine(lines, step.anchor, 0, what);
    const to = step.to === step.anchor ? from : findLine(lines, step.to, from + 1, what, false);
    lines.splice(from, to - from + 1, ...blockLines);
    return lines.join('\n');
  }
  // Whole lines only: a match must start a line.
  const starts = [];
  for (let at = current.indexOf(block); at >= 0; at = current.indexOf(block, at + 1))
    if (at === 0 || current[at - 1] === '\n') starts.push(at);
  if (starts.length === 0) throw new Error(`${what}: these lines are not in ${step.file} as shown:\n${block}`);
  if (step.mode === 'shown') return current;
  if (starts.length > 1) throw new Error(`${what}: these lines are in ${step.file} ${starts.length} times`);
  return current.slice(0, starts[0]) + current.slice(starts[0] + block.length);
}

/** The chapters of a tutorial folder with their steps: [{ chapter, steps }]. */
export function tutorialSteps(tutorialDir) {
  return chapterFiles(tutorialDir).map((chapter) => ({
    chapter,
    steps: chapterSteps(chapter, readFileSync(join(tutorialDir, chapter), 'utf8')),
  }));
}
