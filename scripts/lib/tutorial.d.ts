/** A command of a ```sh block: `NAME=value` words before it are its environment. */
export interface CommandStep {
  kind: 'command';
  chapter: string;
  line: number;
  env: Record<string, string>;
  words: string[];
}

/** Where a code block goes, from the annotation on the line before it. */
export interface Placement {
  file: string;
  mode: 'whole' | 'append' | 'after' | 'replace' | 'delete' | 'shown';
  /** The line to insert after, or the first line to replace. */
  anchor?: string;
  /** The last line to replace. */
  to?: string;
}

/** A code block and where it goes. */
export interface EditStep extends Placement {
  kind: 'edit';
  chapter: string;
  line: number;
  lang: string;
  text: string;
}

export type Step = CommandStep | EditStep;

export function chapterFiles(tutorialDir: string): string[];
export function annotation(before: string): Placement | undefined;
export function shellWords(line: string): string[];
export function chapterSteps(chapter: string, markdown: string): Step[];
export function describeStep(step: Step): string;
export function applyEdit(step: EditStep, current: string | undefined): string;
export function tutorialSteps(tutorialDir: string): Array<{ chapter: string; steps: Step[] }>;
