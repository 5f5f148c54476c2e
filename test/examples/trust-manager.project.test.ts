/**
 * examples/trust-manager as a project of its own: linted by its own eslint.config.js (the repository's configuration leaves
 * examples/ out). Its TypeScript is type-checked with the repository's tests (tsconfig.test.json includes it), and it
 * runs in trust-manager.equivalence.test.ts.
 */
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { exampleDir } from '../support/example-port.js';

describe('examples/trust-manager', () => {
  it('passes its own lint configuration', async () => {
    const eslint = new ESLint({ cwd: exampleDir('trust-manager') });
    const results = await eslint.lintFiles(['.']);
    const problems = results.flatMap((r) =>
      r.messages.map((m) => `${r.filePath}:${m.line}:${m.column} ${m.ruleId ?? ''} ${m.message}`),
    );
    expect(results.length).toBeGreaterThan(5);
    expect(problems).toEqual([]);
  }, 120_000);
});
