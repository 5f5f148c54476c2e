import { describe, expect, it } from 'vitest';
import { newLogger } from '../../../src/runtime/log/index.js';
import { parseWarningHeaders, warningLogger } from '../../../src/runtime/rest/index.js';

describe('parseWarningHeaders', () => {
  it('reads code, agent and the unescaped text of each comma-separated warning, skipping a date', () => {
    expect(
      parseWarningHeaders([
        '299 - "unknown field \\"spec.x\\""',
        '299 - "a, b" "Sat, 28 Nov 2026 17:00:00 GMT", 199 host:443 "second"',
      ]),
    ).toEqual([
      { code: 299, agent: '-', text: 'unknown field "spec.x"' },
      { code: 299, agent: '-', text: 'a, b' },
      { code: 199, agent: 'host:443', text: 'second' },
    ]);
  });

  it('keeps the warnings before a malformed one and drops the rest of that value', () => {
    expect(parseWarningHeaders(['299 - "ok", 29 - "short code"', '299 - "unterminated'])).toEqual([
      { code: 299, agent: '-', text: 'ok' },
    ]);
  });
});

describe('warningLogger', () => {
  it('logs a 299 text once, ignores other codes and empty texts, and repeats when deduplicate is false', () => {
    const lines: string[] = [];
    const log = newLogger({ sink: (l) => lines.push(l) });
    const once = warningLogger(log);
    const every = warningLogger(log, { deduplicate: false });
    for (const h of [once, every]) {
      h({ code: 299, agent: '-', text: 'deprecated' });
      h({ code: 299, agent: '-', text: 'deprecated' });
      h({ code: 199, agent: '-', text: 'other code' });
      h({ code: 299, agent: '-', text: '' });
    }
    expect(lines.map((l) => JSON.parse(l).msg)).toEqual(['deprecated', 'deprecated', 'deprecated']);
  });
});
