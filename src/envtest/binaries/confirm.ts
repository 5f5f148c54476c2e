/** Asking yes/no on the terminal before something slow (a build from source); answers yes when nobody can be asked. */
import { createInterface } from 'node:readline/promises';

/** Asks `question` when stdin and stderr are terminals ([Y/n], Enter is yes); otherwise returns true without asking. */
export async function confirmOnTerminal(question: string, signal?: AbortSignal): Promise<boolean> {
  if (!process.stdin.isTTY || !process.stderr.isTTY) return true;
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(`${question} [Y/n] `, { signal });
    return !/^\s*n/i.test(answer);
  } finally {
    rl.close();
  }
}
