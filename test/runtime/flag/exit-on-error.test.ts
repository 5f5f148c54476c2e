import { afterEach, describe, expect, it, vi } from 'vitest';
import { flagUsage, parseFlagsOrExit } from '@kubescaffold/runtime';

const defs = {
  'leader-elect': { type: 'bool', default: false, usage: 'Enable leader election.' },
  'metrics-bind-address': { type: 'string', default: '0', usage: 'The metrics address.' },
} as const;
const usage = flagUsage(defs, { name: 'manager' });

/** Thrown by the mocked process.exit, so that the code after it does not run, as after a real exit. */
class Exited {
  constructor(readonly code: number | string | null | undefined) {}
}

/** Runs parseFlagsOrExit on `argv` with process.exit, stdout and stderr captured. */
function run(argv: string[]): {
  code: number | string | null | undefined;
  stdout: string;
  stderr: string;
  result?: unknown;
} {
  let stdout = '';
  let stderr = '';
  vi.spyOn(process.stdout, 'write').mockImplementation(
    (chunk: string | Uint8Array) => ((stdout += String(chunk)), true),
  );
  vi.spyOn(process.stderr, 'write').mockImplementation(
    (chunk: string | Uint8Array) => ((stderr += String(chunk)), true),
  );
  vi.spyOn(process, 'exit').mockImplementation((code) => {
    throw new Exited(code);
  });
  try {
    const result = parseFlagsOrExit(defs, argv, { name: 'manager' });
    return { code: undefined, stdout, stderr, result };
  } catch (err) {
    if (err instanceof Exited) return { code: err.code, stdout, stderr };
    throw err;
  } finally {
    vi.restoreAllMocks();
  }
}

afterEach(() => vi.restoreAllMocks());

describe('parseFlagsOrExit', () => {
  it('returns the values of a good command line without printing or exiting', () => {
    expect(run(['--leader-elect=true', '--metrics-bind-address', ':8443'])).toEqual({
      code: undefined,
      stdout: '',
      stderr: '',
      result: { values: { 'leader-elect': true, 'metrics-bind-address': ':8443' }, args: [] },
    });
  });

  it('prints the usage on stdout and exits 0 for -h and --help', () => {
    for (const arg of ['-h', '--help']) expect(run([arg]), arg).toEqual({ code: 0, stdout: usage, stderr: '' });
  });

  it("prints Go's message and the usage on stderr and exits 2 for an unknown flag, a missing value, a bad value and an argument", () => {
    const cases: Array<[string[], string]> = [
      [['--bogus'], 'flag provided but not defined: -bogus'],
      [['--metrics-bind-address'], 'flag needs an argument: -metrics-bind-address'],
      [['--leader-elect=yes'], 'invalid boolean value "yes" for -leader-elect: parse error'],
      [['extra'], 'unexpected argument "extra": manager takes flags only'],
    ];
    for (const [argv, message] of cases)
      expect(run(argv), argv.join(' ')).toEqual({ code: 2, stdout: '', stderr: `${message}\n${usage}` });
  });
});
