import { describe, expect, it } from 'vitest';
import { FlagError, isFlagError, parseFlags, type FlagErrorReason } from '@kubescaffold/runtime';

// A few of the scaffolded manager's flags, one of each type.
const defs = {
  'leader-elect': { type: 'bool', default: false, usage: 'Enable leader election.' },
  'metrics-secure': { type: 'bool', default: true, usage: 'Serve metrics over HTTPS.' },
  'metrics-bind-address': { type: 'string', default: '0', usage: 'The metrics address.' },
  'webhook-port': { type: 'int', default: 9443, usage: 'The webhook port.' },
} as const;

const values = (argv: string[]) => parseFlags(defs, argv, { name: 'manager' }).values;

/** The FlagError parseFlags throws for `argv`. */
function refusal(argv: string[], options: { allowArgs?: boolean } = {}): FlagError {
  try {
    parseFlags(defs, argv, { name: 'manager', ...options });
  } catch (err) {
    if (err instanceof FlagError) return err;
    throw err;
  }
  throw new FlagError(`parseFlags accepted ${JSON.stringify(argv)}`, 'BadSyntax');
}

describe('parseFlags', () => {
  it('gives every flag its default when none is given, typed by its definition', () => {
    const parsed = parseFlags(defs, [], { name: 'manager' });
    expect(parsed).toEqual({
      values: { 'leader-elect': false, 'metrics-secure': true, 'metrics-bind-address': '0', 'webhook-port': 9443 },
      args: [],
    });
    // The types follow from the definitions: these assignments type-check only if they do.
    const elect: boolean = parsed.values['leader-elect'];
    const port: number = parsed.values['webhook-port'];
    const address: string = parsed.values['metrics-bind-address'];
    expect([elect, port, address]).toEqual([false, 9443, '0']);
  });

  it('reads process.argv after the script when no argv is given', () => {
    const saved = process.argv;
    process.argv = ['node', 'manager.js', '--leader-elect'];
    try {
      expect(parseFlags(defs).values['leader-elect']).toBe(true);
    } finally {
      process.argv = saved;
    }
  });

  it('reads one dash and two dashes alike', () => {
    for (const dash of ['-', '--']) {
      expect(
        values([`${dash}leader-elect`, `${dash}metrics-bind-address`, ':8443', `${dash}webhook-port=8443`]),
      ).toEqual({
        'leader-elect': true,
        'metrics-secure': true,
        'metrics-bind-address': ':8443',
        'webhook-port': 8443,
      });
    }
  });

  it("reads every bool spelling of Go's strconv.ParseBool after `=`", () => {
    for (const spelling of ['1', 't', 'T', 'true', 'TRUE', 'True'])
      expect(values([`--leader-elect=${spelling}`])['leader-elect'], spelling).toBe(true);
    for (const spelling of ['0', 'f', 'F', 'false', 'FALSE', 'False'])
      expect(values([`--metrics-secure=${spelling}`])['metrics-secure'], spelling).toBe(false);
  });

  it('never takes the argument after a bool as its value', () => {
    const parsed = parseFlags(defs, ['-leader-elect', 'false'], { name: 'manager', allowArgs: true });
    expect(parsed.values['leader-elect']).toBe(true);
    expect(parsed.args).toEqual(['false']);
  });

  it('takes the next argument as the value of a string or int, whatever it looks like, and `=` values as they are', () => {
    expect(values(['--metrics-bind-address', '-leader-elect'])).toMatchObject({
      'metrics-bind-address': '-leader-elect',
      'leader-elect': false,
    });
    expect(values(['--metrics-bind-address='])['metrics-bind-address']).toBe('');
    expect(values(['--metrics-bind-address=a=b'])['metrics-bind-address']).toBe('a=b');
    expect(values(['--webhook-port', '8443'])['webhook-port']).toBe(8443);
  });

  it("reads ints as Go's ParseInt with base 0 does: signs, 0x, 0o, 0b, a leading 0 for octal, and `_` between digits", () => {
    const cases: Array<[string, number]> = [
      ['-5', -5],
      ['+5', 5],
      ['0x1F', 31],
      ['0x_1f', 31],
      ['0o17', 15],
      ['017', 15],
      ['0b101', 5],
      ['1_000', 1000],
      ['0', 0],
      ['-0', 0],
    ];
    for (const [text, number] of cases) expect(values([`--webhook-port=${text}`])['webhook-port'], text).toBe(number);
  });

  it('keeps the last value of a flag given twice', () => {
    expect(values(['--leader-elect', '--leader-elect=false', '--webhook-port=1', '--webhook-port=2'])).toMatchObject({
      'leader-elect': false,
      'webhook-port': 2,
    });
  });

  it('ends the flags at `--` and at the first non-flag argument (`-` alone is one), leaving the rest as args', () => {
    const parse = (argv: string[]) => parseFlags(defs, argv, { name: 'manager', allowArgs: true });
    expect(parse(['--leader-elect', '--', '--metrics-secure=false'])).toEqual({
      values: expect.objectContaining({ 'leader-elect': true, 'metrics-secure': true }),
      args: ['--metrics-secure=false'],
    });
    expect(parse(['run', '--leader-elect']).args).toEqual(['run', '--leader-elect']);
    expect(parse(['-', '--leader-elect']).args).toEqual(['-', '--leader-elect']);
    expect(parse(['--leader-elect', '--']).args).toEqual([]);
  });

  it('refuses an argument after the flags unless allowArgs, with a hint when it was meant as a bool value', () => {
    const hinted = refusal(['-leader-elect', 'false']);
    expect([hinted.reason, hinted.message]).toEqual([
      'UnexpectedArgument',
      'unexpected argument "false": manager takes flags only (a boolean flag takes its value after "=": -leader-elect=false)',
    ]);
    expect(refusal(['run']).message).toBe('unexpected argument "run": manager takes flags only');
    expect(refusal(['--leader-elect', '--', 'true']).message).toBe(
      'unexpected argument "true": manager takes flags only',
    );
  });

  it("refuses with Go's messages: an unknown flag, a missing value, a bad value, bad syntax", () => {
    const cases: Array<[string[], FlagErrorReason, string]> = [
      [['--foo'], 'Undefined', 'flag provided but not defined: -foo'],
      [['-foo=1'], 'Undefined', 'flag provided but not defined: -foo'],
      [['--leader-elect=yes'], 'InvalidValue', 'invalid boolean value "yes" for -leader-elect: parse error'],
      [['--leader-elect='], 'InvalidValue', 'invalid boolean value "" for -leader-elect: parse error'],
      [['--metrics-bind-address'], 'MissingValue', 'flag needs an argument: -metrics-bind-address'],
      [['-webhook-port'], 'MissingValue', 'flag needs an argument: -webhook-port'],
      [['--webhook-port=abc'], 'InvalidValue', 'invalid value "abc" for flag -webhook-port: parse error'],
      [['--webhook-port', '1.5'], 'InvalidValue', 'invalid value "1.5" for flag -webhook-port: parse error'],
      [['--webhook-port=08'], 'InvalidValue', 'invalid value "08" for flag -webhook-port: parse error'],
      [['--webhook-port=1__0'], 'InvalidValue', 'invalid value "1__0" for flag -webhook-port: parse error'],
      [
        ['--webhook-port=99999999999999999999'],
        'InvalidValue',
        'invalid value "99999999999999999999" for flag -webhook-port: value out of range',
      ],
      [['--webhook-port=\t'], 'InvalidValue', 'invalid value "\\t" for flag -webhook-port: parse error'],
      [['---x'], 'BadSyntax', 'bad flag syntax: ---x'],
      [['-=x'], 'BadSyntax', 'bad flag syntax: -=x'],
    ];
    for (const [argv, reason, message] of cases) {
      const err = refusal(argv);
      expect([err.reason, err.message], argv.join(' ')).toEqual([reason, message]);
    }
    expect(refusal(['--leader-elect=yes']).flag).toBe('leader-elect');
  });

  it("reads a value flag's text, and its default, through its parser, typed by what the parser returns", () => {
    const level = (text: string): { verbosity: number } => {
      const verbosity = { debug: 1, info: 0 }[text];
      if (verbosity === undefined) throw new Error(`invalid log level ${JSON.stringify(text)}`);
      return { verbosity };
    };
    const withLevel = (fallback: string) => ({
      level: { type: 'value' as const, default: fallback, parse: level, usage: 'The log level.' },
    });
    const parsed: { verbosity: number } = parseFlags(withLevel('info'), ['--level', 'debug']).values.level;
    expect(parsed).toEqual({ verbosity: 1 });
    expect(parseFlags(withLevel('info'), []).values.level).toEqual({ verbosity: 0 });
    expect(() => parseFlags(withLevel('info'), ['-level=loud'])).toThrow(
      new FlagError('invalid value "loud" for flag -level: invalid log level "loud"', 'InvalidValue', 'level'),
    );
    // A default that its own parser refuses (from an environment variable, say) is refused as a given value is.
    expect(() => parseFlags(withLevel('loud'), [])).toThrow(
      'invalid default value "loud" for flag -level: invalid log level "loud"',
    );
  });

  it('reads -h, -help, --h and --help (with or without a value) as a request for help, unless a flag has that name', () => {
    for (const arg of ['-h', '-help', '--h', '--help', '--help=1']) {
      const err = refusal([arg]);
      expect([err.reason, err.message], arg).toEqual(['Help', 'flag: help requested']);
    }
    expect(parseFlags({ h: { type: 'string', default: '', usage: 'host' } }, ['-h', 'x']).values.h).toBe('x');
  });

  it('reads --no-NAME as --NAME=false for a bool only when allowNegative is set', () => {
    expect(parseFlags(defs, ['--no-metrics-secure'], { allowNegative: true }).values['metrics-secure']).toBe(false);
    expect(refusal(['--no-metrics-secure']).message).toBe('flag provided but not defined: -no-metrics-secure');
    expect(() => parseFlags(defs, ['--no-webhook-port'], { allowNegative: true })).toThrow(
      'flag provided but not defined: -no-webhook-port',
    );
    expect(() => parseFlags(defs, ['--no-metrics-secure=true'], { allowNegative: true })).toThrow(
      'flag provided but not defined: -no-metrics-secure',
    );
  });

  it('does not take names from Object.prototype for flags', () => {
    expect(refusal(['--toString']).message).toBe('flag provided but not defined: -toString');
  });
});

describe('isFlagError', () => {
  it('recognises a FlagError, in a cause chain too, and by reason', () => {
    const err = new FlagError('flag provided but not defined: -foo', 'Undefined', 'foo');
    expect(isFlagError(err)).toBe(true);
    expect(isFlagError(new Error('wrapped', { cause: err }), 'Undefined')).toBe(true);
    expect(isFlagError(err, 'Help')).toBe(false);
    expect(isFlagError(new Error('flag provided but not defined: -foo'))).toBe(false);
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('FlagError');
  });
});
