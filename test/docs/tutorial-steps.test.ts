import { describe, expect, it } from 'vitest';
import { applyEdit, chapterSteps, type EditStep, type Step } from '../../scripts/lib/tutorial.js';

// How the tutorial's test reads a chapter (scripts/lib/tutorial.js): its commands, and where each code block goes
// from the line before it. test/e2e/tutorial.test.ts follows the real chapters; these cases pin the reading down.
const fence = '```';
const page = (...parts: string[]): string => parts.join('\n\n');
const block = (lang: string, text: string): string => `${fence}${lang}\n${text}\n${fence}`;
const edit = (steps: Step[], i = 0): EditStep => steps.filter((s): s is EditStep => s.kind === 'edit')[i]!;

describe("the tutorial's steps", () => {
  it('reads commands, one per line and per &&, with their environment, and skips comments', () => {
    const steps = chapterSteps(
      '01-x.md',
      page('Intro.', block('sh', 'mkdir p && cd p\n# a comment\nENABLE_WEBHOOKS=false npx scaffold run  # runs it')),
    );
    expect(steps.map((s) => (s.kind === 'command' ? [s.env, s.words, s.line] : s.kind))).toEqual([
      [{}, ['mkdir', 'p'], 4],
      [{}, ['cd', 'p'], 4],
      [{ ENABLE_WEBHOOKS: 'false' }, ['npx', 'scaffold', 'run'], 6],
    ]);
  });

  it('reads where each code block goes from the line before it, in every form', () => {
    const steps = chapterSteps(
      '02-x.md',
      page(
        'In `a.ts`, the whole file:',
        block('ts', 'one'),
        'In `a.ts`, replace everything with:',
        block('ts', 'one'),
        'In `a.ts`, add at the end:',
        block('ts', 'two'),
        'In `a.ts`, add after the line `one`:',
        block('ts', 'x'),
        'In `a.ts`, replace the line `x` with:',
        block('ts', 'y'),
        'In `a.ts`, replace the lines from `y` to `two` with:',
        block('ts', 'z'),
        'In `a.ts`, delete these lines:',
        block('ts', 'z'),
        'From `c.yaml`, as the command wrote it:',
        block('yaml', 'k: v'),
      ),
    );
    expect(steps.map((s) => s.kind === 'edit' && [s.file, s.mode, s.anchor, s.to])).toEqual([
      ['a.ts', 'whole', undefined, undefined],
      ['a.ts', 'whole', undefined, undefined],
      ['a.ts', 'append', undefined, undefined],
      ['a.ts', 'after', 'one', undefined],
      ['a.ts', 'replace', 'x', 'x'],
      ['a.ts', 'replace', 'y', 'two'],
      ['a.ts', 'delete', undefined, undefined],
      ['c.yaml', 'shown', undefined, undefined],
    ]);
  });

  it('refuses a code block that does not say where it goes, naming the chapter and line', () => {
    expect(() => chapterSteps('03-x.md', page('Some code:', block('ts', 'const a = 1;')))).toThrow(
      /^03-x\.md:3: a ts block must say where it goes/,
    );
    // Text and sh blocks are not written anywhere.
    expect(chapterSteps('03-x.md', page('A tree:', block('text', 'a/\n└── b')))).toEqual([]);
  });

  it('applies each form to a file, keeping the indentation the block has', () => {
    const steps = chapterSteps(
      '04-x.md',
      page(
        'In `f.ts`, add at the end:',
        block('ts', 'class A {\n}'),
        'In `f.ts`, add after the line `class A {`:',
        block('ts', '  a(): void {}'),
        'In `f.ts`, replace the lines from `a(): void {}` to `}` with:',
        block('ts', '  b(): void {}\n}'),
        'In `f.ts`, delete these lines:',
        block('ts', "import 'x';"),
      ),
    );
    let file = "import 'x';\n";
    file = applyEdit(edit(steps, 0), file);
    expect(file).toBe("import 'x';\n\nclass A {\n}\n");
    file = applyEdit(edit(steps, 1), file);
    expect(file).toBe("import 'x';\n\nclass A {\n  a(): void {}\n}\n");
    file = applyEdit(edit(steps, 2), file);
    expect(file).toBe("import 'x';\n\nclass A {\n  b(): void {}\n}\n");
    expect(applyEdit(edit(steps, 3), file)).toBe('\nclass A {\n  b(): void {}\n}\n');
  });

  it('fails, naming the chapter, line and file, when a block does not apply', () => {
    const steps = chapterSteps(
      '05-x.md',
      page(
        'In `f.ts`, add after the line `missing();`:',
        block('ts', 'x'),
        'In `f.ts`, replace the line `twice();` with:',
        block('ts', 'x'),
        'From `f.ts`, as the command wrote it:',
        block('ts', 'not there'),
        'In `g.ts`, add at the end:',
        block('ts', 'x'),
      ),
    );
    const file = 'twice();\ntwice();\n';
    expect(() => applyEdit(edit(steps, 0), file)).toThrow(/^05-x\.md:3 \(after f\.ts\): no line `missing\(\);`/);
    expect(() => applyEdit(edit(steps, 1), file)).toThrow(
      /05-x\.md:9 \(replace f\.ts\): the line `twice\(\);` is there 2 times/,
    );
    expect(() => applyEdit(edit(steps, 2), file)).toThrow(/05-x\.md:15 \(shown f\.ts\): these lines are not in f\.ts/);
    expect(() => applyEdit(edit(steps, 3), undefined)).toThrow(/05-x\.md:21 \(append g\.ts\): g\.ts does not exist/);
  });
});
