/** Asking yes/no on the terminal before something slow (a build from source); answers yes when nobody can be asked. */
import { createInterface } from 'node:readline/promises';

/** Ctrl-C at the question: the user's answer (stop here), not a failure; it propagates to the caller, which says so. */
export class QuestionInterrupted extends Error {
  constructor() {
    super('interrupted at the question (Ctrl-C)');
    this.name = 'QuestionInterrupted';
  }
}

/** The terminal a question is asked on; default stdin and stderr. */
export interface QuestionTerminal {
  input: NodeJS.ReadableStream & { isTTY?: boolean };
  output: NodeJS.WritableStream & { isTTY?: boolean };
}

/**
 * Asks `question` when input and output are terminals ([Y/n], Enter is yes); otherwise returns true without asking.
 * Ctrl-C rejects with QuestionInterrupted.
 */
export async function confirmOnTerminal(
  question: string,
  signal?: AbortSignal,
  terminal: QuestionTerminal = { input: process.stdin, output: process.stderr },
): Promise<boolean> {
  const { input, output } = terminal;
  if (!input.isTTY || !output.isTTY) return true;
  const rl = createInterface({ input, output, terminal: true });
  // A 'SIGINT' listener keeps readline from rejecting the question with an AbortError ("Aborted with Ctrl+C").
  const interrupted = new Promise<never>((_, reject) =>
    rl.once('SIGINT', () => {
      output.write('\n'); // the error line then starts on a line of its own, not after "[Y/n] "
      reject(new QuestionInterrupted());
    }),
  );
  try {
    const answer = await Promise.race([rl.question(`${question} [Y/n] `, { signal }), interrupted]);
    return !/^\s*n/i.test(answer);
  } finally {
    rl.close();
  }
}
