/** A boolean flag: `-name` sets it, `-name=false` (or 0, f, F, FALSE, False) clears it; it never takes the next argument. */
export interface BoolFlag {
  /** Go's bool. */
  type: 'bool';
  /** The value when the flag is not given. */
  default: boolean;
  /** One line of help for the usage listing (newlines continue it on the next lines). */
  usage: string;
}

/** A string flag: `-name value` or `-name=value`. */
export interface StringFlag {
  /** Go's string. */
  type: 'string';
  /** The value when the flag is not given. */
  default: string;
  /** One line of help for the usage listing (newlines continue it on the next lines). */
  usage: string;
}

/**
 * An integer flag: `-name 8443` or `-name=8443`; as Go's strconv.ParseInt with base 0 it also reads 0x1f, 0o17, 017 and
 * 0b101, and `_` between digits. A value outside Number's safe integers is refused (Go's limit is int64's).
 */
export interface IntFlag {
  /** Go's int. */
  type: 'int';
  /** The value when the flag is not given. */
  default: number;
  /** One line of help for the usage listing (newlines continue it on the next lines). */
  usage: string;
}

/**
 * A duration flag, as Go's flag.Duration: `-name 10s` or `-name=1m30s`, read as time.ParseDuration reads it (a
 * sequence of decimal numbers with units ns, us, µs, ms, s, m, h; `0` alone). Its value is in milliseconds.
 */
export interface DurationFlag {
  /** Go's time.Duration. */
  type: 'duration';
  /** The value when the flag is not given, in milliseconds; the usage shows it as Go does (`10s`, `1m30s`). */
  default: number;
  /** One line of help for the usage listing (newlines continue it on the next lines). */
  usage: string;
}

/**
 * A flag whose text its own parser reads, as Go's flag.Var with a flag.Value: `-name value` or `-name=value`. The
 * parser's result is the flag's value; an error it throws refuses the command line as Go's does
 * (`invalid value "loud" for flag -zap-log-level: …`). The default is text, read by the same parser.
 */
export interface ValueFlag<T> {
  /** Go's flag.Value. */
  type: 'value';
  /** The text the flag has when it is not given; parsed like a given value. */
  default: string;
  /** Reads the flag's text (flag.Value's Set), throwing an Error that says what is wrong with it. */
  parse: (text: string) => T;
  /** One line of help for the usage listing (newlines continue it on the next lines). */
  usage: string;
}

/** One flag's type, default and help. */
export type FlagDefinition = BoolFlag | StringFlag | IntFlag | DurationFlag | ValueFlag<unknown>;

/** A program's flags by name (without dashes), as Go's flag.BoolVar, StringVar, IntVar and DurationVar define them. */
export type FlagDefinitions = Readonly<Record<string, FlagDefinition>>;

/**
 * The TypeScript type of a flag's value: boolean for bool, number for int and duration (milliseconds), string for
 * string, T for a ValueFlag<T>.
 */
export type FlagValue<F extends FlagDefinition> =
  F extends ValueFlag<infer T> ? T : F extends BoolFlag ? boolean : F extends IntFlag | DurationFlag ? number : string;

/** Every defined flag's value (given on the command line, or its default), typed by its definition. */
export type FlagValues<D extends FlagDefinitions> = { -readonly [K in keyof D]: FlagValue<D[K]> };
