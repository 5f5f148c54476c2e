import type { FlagDefinition, FlagDefinitions, FlagValues, ValueFlag } from './definitions.js';
import { FlagError } from './errors.js';
import { goQuote, parseBool, parseDuration, parseInt } from './values.js';

/** How parseFlags reads a command line beyond Go's rules. */
export interface ParseFlagsOptions {
  /** The program's name, for the usage's first line (`Usage of manager:`). Default: the script's file name. */
  name?: string;
  /**
   * Whether arguments may follow the flags (returned as `args`). Default false: the first argument that is not a flag
   * is a FlagError (`UnexpectedArgument`), where Go's flag package would stop parsing there and leave the rest to
   * flag.Args(), so that `-leader-elect false` is refused instead of leaving leader election on.
   */
  allowArgs?: boolean;
  /**
   * Also read `--no-NAME` as `--NAME=false` for a boolean flag (Node's parseArgs allowNegative), which Go's flag package
   * does not: for command lines written for a program that parsed its flags with parseArgs. Default false.
   */
  allowNegative?: boolean;
}

/** A parsed command line: every flag's value, and the arguments after the flags. */
export interface ParsedFlags<D extends FlagDefinitions> {
  /** Every defined flag's value: the last one given, else its default. */
  values: FlagValues<D>;
  /** The arguments after the flags (after the first non-flag argument, or after `--`); empty unless allowArgs. */
  args: string[];
}

/**
 * Parses a command line as Go's flag package does (FlagSet.Parse): `-name` and `--name` alike; `-name=value` or
 * `-name value` for a string, int, duration or value; `-name` or `-name=BOOL` for a bool (1, 0, t, f, true, false, TRUE, FALSE, True,
 * False), which never takes the next argument; `--` ends the flags, and so does the first argument that is not a flag
 * (`-` alone is one). A flag given twice keeps its last value.
 *
 * @param definitions - the flags, by name: their type, default and help (the values' types follow from them)
 * @param argv - the arguments, without Node and the script; default `process.argv.slice(2)`
 * @throws FlagError with Go's message for an unknown flag (`flag provided but not defined: -foo`), a missing value
 *   (`flag needs an argument: -port`), a bad value (`invalid boolean value "yes" for -leader-elect: parse error`,
 *   `invalid value "x" for flag -port: parse error`) or bad syntax (`bad flag syntax: ---x`); for -h, -help, --h or
 *   --help not defined as flags, one whose reason is `Help`; for an argument after the flags, unless allowArgs, one
 *   whose reason is `UnexpectedArgument`.
 */
export function parseFlags<const D extends FlagDefinitions>(
  definitions: D,
  argv: readonly string[] = process.argv.slice(2),
  options: ParseFlagsOptions = {},
): ParsedFlags<D> {
  const values: Record<string, unknown> = {};
  for (const [name, def] of Object.entries(definitions))
    values[name] = def.type === 'value' ? parseValue(name, def, def.default, 'default value') : def.default;

  let i = 0;
  // The last flag read was a boolean given without `=`: an argument after it that reads as a bool was meant as its value.
  let bareBool: string | undefined;
  for (; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg.length < 2 || !arg.startsWith('-')) break;
    if (arg === '--') {
      i++;
      bareBool = undefined;
      break;
    }
    const body = arg.slice(arg.startsWith('--') ? 2 : 1);
    if (body === '' || body.startsWith('-') || body.startsWith('='))
      throw new FlagError(`bad flag syntax: ${arg}`, 'BadSyntax');
    // The name ends at the first `=` after its first character (Go's rule, so `-=x` was bad syntax above).
    const eq = body.indexOf('=');
    const name = eq < 0 ? body : body.slice(0, eq);
    const inline = eq < 0 ? undefined : body.slice(eq + 1);

    const def: FlagDefinition | undefined = Object.hasOwn(definitions, name) ? definitions[name] : undefined;
    bareBool = undefined;
    if (def === undefined) {
      const negated = options.allowNegative && inline === undefined ? negatedBool(definitions, name) : undefined;
      if (negated !== undefined) {
        values[negated] = false;
        continue;
      }
      if (name === 'help' || name === 'h') throw new FlagError('flag: help requested', 'Help', name);
      throw new FlagError(`flag provided but not defined: -${name}`, 'Undefined', name);
    }
    if (def.type === 'bool') {
      if (inline === undefined) {
        values[name] = true;
        bareBool = name;
        continue;
      }
      const parsed = parseBool(inline);
      if (!parsed.ok)
        throw new FlagError(
          `invalid boolean value ${goQuote(inline)} for -${name}: ${parsed.reason}`,
          'InvalidValue',
          name,
        );
      values[name] = parsed.value;
      continue;
    }
    let value = inline;
    if (value === undefined) {
      // Go takes the next argument whatever it looks like, even `-x`.
      if (i + 1 >= argv.length) throw new FlagError(`flag needs an argument: -${name}`, 'MissingValue', name);
      value = argv[++i]!;
    }
    if (def.type === 'string') {
      values[name] = value;
    } else if (def.type === 'value') {
      values[name] = parseValue(name, def, value, 'value');
    } else {
      const parsed = def.type === 'duration' ? parseDuration(value) : parseInt(value);
      if (!parsed.ok)
        throw new FlagError(
          `invalid value ${goQuote(value)} for flag -${name}: ${parsed.reason}`,
          'InvalidValue',
          name,
        );
      values[name] = parsed.value;
    }
  }

  const args = argv.slice(i);
  if (args.length > 0 && !options.allowArgs) {
    const first = args[0]!;
    // The trap Go's own parser leaves open: `-leader-elect false` sets the flag and ignores "false".
    const hint =
      bareBool !== undefined && parseBool(first).ok
        ? ` (a boolean flag takes its value after "=": -${bareBool}=${first})`
        : '';
    throw new FlagError(
      `unexpected argument ${goQuote(first)}: ${programName(options)} takes flags only${hint}`,
      'UnexpectedArgument',
    );
  }
  return { values: values as FlagValues<D>, args };
}

/** A ValueFlag's text through its parser; what the parser throws becomes Go's "invalid value" FlagError. */
function parseValue(name: string, def: ValueFlag<unknown>, text: string, what: 'value' | 'default value'): unknown {
  try {
    return def.parse(text);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new FlagError(`invalid ${what} ${goQuote(text)} for flag -${name}: ${reason}`, 'InvalidValue', name);
  }
}

/** The bool flag that `no-NAME` negates, if NAME is one. */
function negatedBool(definitions: FlagDefinitions, name: string): string | undefined {
  if (!name.startsWith('no-')) return undefined;
  const target = name.slice(3);
  return Object.hasOwn(definitions, target) && definitions[target]!.type === 'bool' ? target : undefined;
}

/** The name the usage and messages give the program: options.name, else the script's file name (Go's os.Args[0]). */
export function programName(options: { name?: string }): string {
  if (options.name !== undefined) return options.name;
  const script = process.argv[1];
  return script === undefined ? 'program' : script.replace(/^.*[\\/]/, '');
}
