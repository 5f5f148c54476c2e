/**
 * The [Y/n] question before a build from source, on a terminal: Enter is yes, n is no, Ctrl-C is an interruption the
 * caller reports in one line (not readline's AbortError, which the CLI would print as a bug).
 */
import { PassThrough } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { confirmOnTerminal, QuestionInterrupted } from '../../src/envtest/binaries/confirm.js';
import { eventually } from '../support/eventually.js';

/** A terminal made of two streams: what the test types, and what the question writes. */
function fakeTerminal(isTTY = true) {
  const input = Object.assign(new PassThrough(), { isTTY });
  const output = Object.assign(new PassThrough(), { isTTY });
  let shown = '';
  output.on('data', (b: Buffer) => (shown += b.toString('utf8')));
  return { input, output, shown: () => shown };
}

async function ask(keys: string): Promise<{ answer: Promise<boolean>; shown: () => string }> {
  const t = fakeTerminal();
  const answer = confirmOnTerminal('Build it?', undefined, t);
  await eventually(() => t.shown().includes('[Y/n] '), 'the question to be shown');
  t.input.write(keys);
  return { answer, shown: t.shown };
}

describe('confirmOnTerminal', () => {
  it('takes Enter as yes and n as no', async () => {
    await expect((await ask('\r')).answer).resolves.toBe(true);
    await expect((await ask('n\r')).answer).resolves.toBe(false);
  });

  it('rejects with QuestionInterrupted on Ctrl-C and ends the question line', async () => {
    const { answer, shown } = await ask('\x03');
    await expect(answer).rejects.toBeInstanceOf(QuestionInterrupted);
    expect(stripVTControlCharacters(shown())).toMatch(/\[Y\/n\] \n$/); // readline may move the cursor first
  });

  it('answers yes without asking when nobody sits at a terminal', async () => {
    const t = fakeTerminal(false);
    await expect(confirmOnTerminal('Build it?', undefined, t)).resolves.toBe(true);
    expect(t.shown()).toBe('');
  });
});
