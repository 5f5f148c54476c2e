/**
 * Seeded fuzzing for tests: a pseudo-random generator, mutations of text and bytes, and a runner bounded by an
 * iteration count and a wall-clock budget. Every case draws from its own generator, seeded from FUZZ_SEED (a fixed
 * default, so CI is reproducible) and the case's index, so a failure names the two numbers that replay it alone:
 * `FUZZ_SEED=<seed> FUZZ_CASE=<i> npx vitest run test/fuzz`. A watchdog thread ends the process, printing the case,
 * if one call never returns (a synchronous loop cannot be interrupted any other way).
 */
import { Worker } from 'node:worker_threads';

/** Deterministic pseudo-random numbers in [0, 1) (mulberry32), so a failure can be replayed. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A seeded generator with the draws mutations need. */
export class Random {
  readonly next: () => number;

  constructor(seed: number) {
    this.next = mulberry32(seed);
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  /** A length skewed towards short: mostly under 8, sometimes up to `max`. */
  length(max: number): number {
    return this.chance(0.8) ? this.int(Math.min(8, max) + 1) : this.int(max + 1);
  }
}

/** Tokens that mean something to the parsers under test, or that parsers often get wrong. */
export const INTERESTING_TOKENS: readonly string[] = [
  '=',
  ';',
  ',',
  ':',
  '{',
  '}',
  '[',
  ']',
  '(',
  ')',
  '"',
  "'",
  '`',
  '\\',
  '*',
  '&',
  '!!',
  '%',
  '#',
  '-',
  '+',
  '|',
  '>',
  '?',
  '<<',
  '\0',
  '\t',
  '\n',
  '\r\n',
  ' ',
  '\u2028',
  '\uFEFF',
  '\uD800',
  '\uDFFF',
  '😀',
  'é',
  '\u0085',
  '0',
  '-1',
  '1e999',
  '0x',
  '0b2',
  '9007199254740993',
  'NaN',
  'true',
  'null',
  '~',
  '__proto__',
  'constructor',
  '\\u',
  '\\x',
  '\\777',
  '"\\',
  '${',
  '*/',
  '/*',
  '//',
  '---',
  '...',
];

/** Byte sequences that are not valid UTF-8: a lone continuation byte, overlong forms, a cut sequence, surrogates. */
const INVALID_UTF8: readonly number[][] = [
  [0x80],
  [0xff],
  [0xc0, 0xaf],
  [0xe2, 0x82],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xfe],
];

/** Inserts a run of one token, `count` times (long runs), at `at`. */
const repeatAt = (s: string, at: number, token: string, count: number): string =>
  s.slice(0, at) + token.repeat(count) + s.slice(at);

/**
 * One mutation of `text`: a character flipped, a token spliced in, a slice deleted or duplicated, a long run, deep
 * nesting, or a slice of `donor` (another corpus entry) spliced in.
 */
export function mutateOnce(r: Random, text: string, donor = ''): string {
  const at = r.int(text.length + 1);
  const end = Math.min(text.length, at + r.length(64));
  switch (r.int(9)) {
    case 0: // flip one character to any code unit
      return text.length === 0
        ? String.fromCharCode(r.int(0x10000))
        : text.slice(0, at) + String.fromCharCode(r.int(r.chance(0.7) ? 128 : 0x10000)) + text.slice(at + 1);
    case 1:
    case 2:
      return text.slice(0, at) + r.pick(INTERESTING_TOKENS) + text.slice(at);
    case 3:
      return text.slice(0, at) + text.slice(end);
    case 4:
      return text.slice(0, end) + text.slice(at, end) + text.slice(end);
    case 5:
      return repeatAt(text, at, r.pick(INTERESTING_TOKENS), r.chance(0.5) ? 1 + r.int(300) : 1 + r.int(20_000));
    case 6: {
      const [open, close] = r.pick([
        ['{', '}'],
        ['[', ']'],
        ['(', ')'],
        ['{a:', '}'],
        ['- ', ''],
        ['[{"a":', '}]'],
      ]);
      const depth = r.chance(0.5) ? 1 + r.int(64) : 1 + r.int(5_000);
      return text.slice(0, at) + open.repeat(depth) + (r.chance(0.5) ? close.repeat(depth) : '') + text.slice(at);
    }
    case 7: {
      if (donor === '') return text.slice(0, at) + r.pick(INTERESTING_TOKENS) + text.slice(at);
      const from = r.int(donor.length);
      return text.slice(0, at) + donor.slice(from, from + r.length(80)) + text.slice(end);
    }
    default: // swap the case of a slice: names and keywords are case-sensitive
      return (
        text.slice(0, at) +
        [...text.slice(at, end)].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('') +
        text.slice(end)
      );
  }
}

/** One to `max` mutations of `text`. */
export function mutateText(r: Random, text: string, donor = '', max = 4): string {
  let out = text;
  for (let n = 1 + r.int(max); n > 0; n--) out = mutateOnce(r, out, donor);
  return out;
}

/** The bytes of `text` (UTF-8), sometimes with sequences that are not valid UTF-8 spliced in. */
export function mutateBytes(r: Random, text: string): Buffer {
  let bytes = Buffer.from(text, 'utf8');
  for (let n = r.chance(0.3) ? 1 + r.int(3) : 0; n > 0; n--) {
    const at = r.int(bytes.length + 1);
    bytes = Buffer.concat([bytes.subarray(0, at), Buffer.from(r.pick(INVALID_UTF8)), bytes.subarray(at)]);
  }
  return bytes;
}

/** Where a value sits in a JSON-like document: keys and indexes from the root. */
export type ValuePath = ReadonlyArray<string | number>;

/** A value nested `depth` levels deep in lists or objects. */
export function nestedValue(depth: number, inObjects: boolean): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = inObjects ? { a: v } : [v];
  return v;
}

/**
 * A value of a type the reader may not expect: wrong scalar types, null, empty and huge strings, lists where objects
 * belong and the reverse, deep nesting, and objects whose own members shadow what string conversion calls.
 */
export function interestingValue(r: Random): unknown {
  switch (r.int(16)) {
    case 0:
      return null;
    case 1:
      return r.chance(0.5);
    case 2:
      return r.pick([0, -1, 1.5, 1e308, -0, 2 ** 53 + 2, 4294967296]);
    case 3:
      return '';
    case 4:
      return r.pick(INTERESTING_TOKENS);
    case 5:
      return r.pick(INTERESTING_TOKENS).repeat(1 + r.int(r.chance(0.8) ? 100 : 20_000));
    case 6:
      return [];
    case 7:
      return [r.pick(INTERESTING_TOKENS), 1, null, {}];
    case 8:
      return {};
    case 9:
      return { name: r.pick(INTERESTING_TOKENS), value: r.pick([1, null, [], {}]) };
    case 10:
      return r.pick<object>([{ toString: 1 }, { valueOf: 'x', toString: {} }, { toJSON: 1 }, { constructor: 1 }]);
    case 11:
      return JSON.parse('{"__proto__": {"polluted": true}, "hasOwnProperty": 1}') as unknown;
    case 12:
      return nestedValue(1 + r.int(r.chance(0.5) ? 64 : 3_000), r.chance(0.5));
    case 13:
      return 'a'.repeat(r.chance(0.8) ? 64 : 1 + r.int(100_000));
    case 14:
      return { a: 'b' };
    default:
      return r.pick([
        'https://',
        'http://[::1',
        'socks5://p:1080',
        'client.authentication.k8s.io/v1',
        'CREATE',
        'DELETE',
        'admission.k8s.io/v1',
        'Never',
        'AdmissionReview',
        'Captain',
      ]);
  }
}

/** The paths in `doc`, the root first: at most `max`, none deeper than `maxDepth` (a deep value is one target). */
export function valuePaths(doc: unknown, max = 5_000, maxDepth = 32): ValuePath[] {
  const out: ValuePath[] = [];
  const stack: ValuePath[] = [[]];
  while (stack.length > 0 && out.length < max) {
    const path = stack.pop()!;
    out.push(path);
    if (path.length >= maxDepth) continue;
    const v = valueAt(doc, path);
    if (Array.isArray(v)) v.forEach((_, i) => stack.push([...path, i]));
    else if (v !== null && typeof v === 'object') for (const k of Object.keys(v)) stack.push([...path, k]);
  }
  return out;
}

function valueAt(doc: unknown, path: ValuePath): unknown {
  let v = doc;
  for (const k of path) v = (v as Record<string | number, unknown>)[k];
  return v;
}

type Container = Record<string | number, unknown>;
const shallowCopy = (v: unknown): Container =>
  (Array.isArray(v) ? [...(v as unknown[])] : { ...(v as Container) }) as Container;

/**
 * `doc` changed at one path: its value replaced by an {@link interestingValue}, removed, wrapped in a list, or given a
 * new member. `doc` itself is left as it was: the containers on the path are copied, the rest is shared (a deep
 * clone of a deeply nested value would overflow the stack).
 */
export function mutateValue(r: Random, doc: unknown): { value: unknown; path: ValuePath } {
  const path = r.pick(valuePaths(doc));
  if (path.length === 0) return { value: r.chance(0.5) ? interestingValue(r) : [doc], path };
  const copy = shallowCopy(doc);
  let parent = copy;
  for (const k of path.slice(0, -1)) {
    const child = shallowCopy(parent[k]);
    parent[k] = child;
    parent = child;
  }
  const key = path[path.length - 1]!;
  switch (r.int(5)) {
    case 0:
      if (Array.isArray(parent)) parent.splice(Number(key), 1);
      else Reflect.deleteProperty(parent, key);
      break;
    case 1:
      parent[key] = [parent[key]];
      break;
    case 2: {
      const target = parent[key];
      if (target !== null && typeof target === 'object' && !Array.isArray(target)) {
        const member = r.pick([
          'name',
          'kind',
          'value',
          'uid',
          'metadata',
          'spec',
          'extra',
          r.pick(INTERESTING_TOKENS),
        ]);
        parent[key] = { ...target, [member]: interestingValue(r) };
        break;
      }
      parent[key] = interestingValue(r);
      break;
    }
    default:
      parent[key] = interestingValue(r);
  }
  return { value: copy, path };
}

/** One to `max` {@link mutateValue}s of `doc`, with the paths changed. */
export function mutateValues(r: Random, doc: unknown, max = 3): { value: unknown; paths: ValuePath[] } {
  let value = doc;
  const paths: ValuePath[] = [];
  for (let n = 1 + r.int(max); n > 0; n--) {
    const m = mutateValue(r, value);
    value = m.value;
    paths.push(m.path);
  }
  return { value, paths };
}

/** At most `max` characters of `s`, with how much was left out, for failure messages. */
export function truncate(s: string, max = 2_000): string {
  return s.length <= max ? s : `${s.slice(0, max)}… (${s.length - max} more characters)`;
}

/** A JSON-ish rendering of an input for a failure message, never throwing (inputs may nest past JSON.stringify's stack). */
export function show(input: unknown): string {
  if (typeof input === 'string') return JSON.stringify(truncate(input));
  try {
    return truncate(JSON.stringify(input) ?? String(input));
  } catch (err) {
    return `(cannot be shown: ${err instanceof Error ? err.message : String(err)})`;
  }
}

const DEFAULT_SEED = 0x29_f022;

/** The run's seed: FUZZ_SEED (decimal or 0x hex) or a fixed default. */
export function fuzzSeed(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.FUZZ_SEED;
  if (raw === undefined || raw === '') return DEFAULT_SEED;
  const seed = Number(raw);
  if (!Number.isSafeInteger(seed)) throw new TypeError(`FUZZ_SEED=${raw} is not an integer`);
  return seed >>> 0;
}

/** The seed of case `i` of a run: the run's seed and the index mixed (splitmix-style), so cases are independent. */
export function caseSeed(seed: number, i: number): number {
  let h = Math.imul((seed ^ Math.imul(i + 1, 0x9e3779b9)) >>> 0, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

export interface FuzzOptions<T> {
  /** Names the target in messages. */
  name: string;
  /** The most cases to run. */
  iterations: number;
  /** Stop starting cases after this long (ms), whichever comes first. */
  budgetMs: number;
  /** A case that takes longer fails (ms); bounds every call, so slow-but-finite inputs fail too. */
  callLimitMs: number;
  /** Builds one case's input from its generator. */
  generate(r: Random): T;
  /** Runs the input and throws (an assertion, or what escaped) if the property does not hold. */
  check(input: T): void | Promise<void>;
  /** The input as text for failure messages; default {@link show}. */
  describe?(input: T): string;
  seed?: number;
  env?: NodeJS.ProcessEnv;
}

/** What a run did, for the test's log. */
export interface FuzzStats {
  seed: number;
  cases: number;
  ms: number;
  /** The slowest case's time (ms). */
  slowestMs: number;
}

/** Thrown for a case whose property failed, with what replays it. */
export class FuzzFailure extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'FuzzFailure';
  }
}

/**
 * Runs cases until `iterations` ran or `budgetMs` passed; throws a FuzzFailure for the first case whose check throws,
 * takes longer than `callLimitMs`, or (async) never settles. FUZZ_CASE=<i> runs that case only.
 */
export async function fuzz<T>(opts: FuzzOptions<T>): Promise<FuzzStats> {
  const env = opts.env ?? process.env;
  const seed = opts.seed ?? fuzzSeed(env);
  const only = env.FUZZ_CASE === undefined || env.FUZZ_CASE === '' ? undefined : Number(env.FUZZ_CASE);
  const describeInput = (input: T): string => {
    try {
      return (opts.describe ?? show)(input);
    } catch (err) {
      // Inputs may nest past JSON.stringify's stack.
      return `(cannot be described: ${err instanceof Error ? err.message : String(err)})`;
    }
  };
  const started = performance.now();
  // A synchronous hang is left to the watchdog, at a bound well past the per-call limit.
  const watchdog = new Watchdog(Math.max(4 * opts.callLimitMs, 10_000));
  let cases = 0;
  let slowestMs = 0;
  try {
    for (let i = only ?? 0; i < (only === undefined ? opts.iterations : only + 1); i++) {
      if (only === undefined && performance.now() - started > opts.budgetMs) break;
      const input = opts.generate(new Random(caseSeed(seed, i)));
      const replay = `${opts.name}: case ${i} (replay: FUZZ_SEED=${seed} FUZZ_CASE=${i})`;
      watchdog.arm(() => `${replay} did not return\ninput: ${describeInput(input)}`);
      const t0 = performance.now();
      try {
        await withTimeout(opts.check(input), opts.callLimitMs * 4);
      } catch (err) {
        const why = err instanceof Error ? `${err.name}: ${err.message}\n${err.stack ?? ''}` : String(err);
        throw new FuzzFailure(`${replay} failed: ${why}\ninput: ${describeInput(input)}`, { cause: err });
      } finally {
        watchdog.disarm();
      }
      const ms = performance.now() - t0;
      slowestMs = Math.max(slowestMs, ms);
      if (ms > opts.callLimitMs)
        throw new FuzzFailure(
          `${replay} took ${Math.round(ms)} ms, over the ${opts.callLimitMs} ms bound\ninput: ${describeInput(input)}`,
        );
      cases++;
    }
  } finally {
    watchdog.stop();
  }
  return { seed, cases, ms: Math.round(performance.now() - started), slowestMs: Math.round(slowestMs) };
}

async function withTimeout(result: void | Promise<void>, ms: number): Promise<void> {
  if (!(result instanceof Promise)) return;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new FuzzFailure(`did not settle within ${ms} ms`)), ms);
  });
  try {
    await Promise.race([result, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

// The watchdog thread, plain JavaScript: it waits on the case counter; if a case stays armed past the limit it writes
// the case's description straight to stderr (the main thread, stuck, cannot relay output) and kills the process.
const WATCHDOG_SOURCE = `
const { workerData } = require('node:worker_threads');
const { writeSync } = require('node:fs');
const { state, text, limitMs } = workerData;
for (;;) {
  const seen = Atomics.load(state, 0);
  if (Atomics.load(state, 1) === 2) break;
  if (Atomics.wait(state, 0, seen, limitMs) === 'timed-out' && Atomics.load(state, 1) === 1 && Atomics.load(state, 0) === seen) {
    const message = Buffer.from(text.buffer, 0, Atomics.load(state, 2)).toString('utf8');
    writeSync(2, '\\nfuzz watchdog: ' + message + '\\n');
    process.kill(process.pid, 'SIGKILL');
  }
}
`;

const DESCRIPTION_BYTES = 8_192;

/** Kills the process if an armed case is not disarmed within `limitMs`. */
class Watchdog {
  // [0] case counter, [1] 0 idle / 1 armed / 2 stopping, [2] length of the description in `text`.
  private readonly state = new Int32Array(new SharedArrayBuffer(12));
  private readonly text = new Uint8Array(new SharedArrayBuffer(DESCRIPTION_BYTES));
  private readonly worker: Worker;

  constructor(limitMs: number) {
    this.worker = new Worker(WATCHDOG_SOURCE, {
      eval: true,
      workerData: { state: this.state, text: this.text, limitMs },
    });
    this.worker.unref();
  }

  /** A case starts; `describe` is only called here, so describing every case must stay cheap. */
  arm(describe: () => string): void {
    const { written } = new TextEncoder().encodeInto(truncate(describe(), DESCRIPTION_BYTES / 4), this.text);
    Atomics.store(this.state, 2, written);
    Atomics.store(this.state, 1, 1);
    Atomics.add(this.state, 0, 1);
    Atomics.notify(this.state, 0);
  }

  disarm(): void {
    Atomics.store(this.state, 1, 0);
  }

  stop(): void {
    Atomics.store(this.state, 1, 2);
    Atomics.add(this.state, 0, 1);
    Atomics.notify(this.state, 0);
    void this.worker.terminate();
  }
}

/** One line with a run's seed and statistics, for CI logs. */
export function summary(name: string, stats: FuzzStats): string {
  return `fuzz ${name}: ${stats.cases} cases in ${stats.ms} ms (slowest ${stats.slowestMs} ms), FUZZ_SEED=${stats.seed}`;
}
