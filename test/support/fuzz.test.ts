import { describe, expect, it } from 'vitest';
import { FuzzFailure, Random, fuzz, fuzzSeed, mutateText, mutateValues } from './fuzz.js';

const run = (env: NodeJS.ProcessEnv, check: (input: string) => void) =>
  fuzz<string>({
    name: 'test',
    iterations: 50,
    budgetMs: 10_000,
    callLimitMs: 2_000,
    env,
    generate: (r) => mutateText(r, 'abc=def'),
    check,
  });

describe('the fuzz helper', () => {
  it('draws the same inputs from the same seed', () => {
    const draw = (seed: number) =>
      Array.from({ length: 20 }, (_, i) => mutateText(new Random(seed + i), 'name=value,other'));
    expect(draw(7)).toEqual(draw(7));
    expect(draw(7)).not.toEqual(draw(8));
    expect(fuzzSeed({ FUZZ_SEED: '0x10' })).toBe(16);
    expect(fuzzSeed({})).toBe(fuzzSeed({ FUZZ_SEED: '' }));
  });

  it('runs `iterations` cases and leaves the mutated document unchanged', async () => {
    const doc = { a: [1, { b: 'c' }] };
    const before = JSON.stringify(doc);
    for (let i = 0; i < 50; i++) mutateValues(new Random(i), doc);
    expect(JSON.stringify(doc)).toBe(before);
    expect((await run({ FUZZ_SEED: '1' }, () => {})).cases).toBe(50);
  });

  it('names the seed and case of a failure, and FUZZ_CASE replays that input alone', async () => {
    const seen: string[] = [];
    const failure = await run({ FUZZ_SEED: '5' }, (input) => {
      seen.push(input);
      if (seen.length === 3) throw new TypeError('boom');
    }).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(FuzzFailure);
    expect((failure as Error).message).toContain(
      'test: case 2 (replay: FUZZ_SEED=5 FUZZ_CASE=2) failed: TypeError: boom',
    );
    expect((failure as Error).message).toContain(`input: ${JSON.stringify(seen[2])}`);
    const replayed: string[] = [];
    expect((await run({ FUZZ_SEED: '5', FUZZ_CASE: '2' }, (input) => void replayed.push(input))).cases).toBe(1);
    expect(replayed).toEqual([seen[2]]);
  });
});
