import { findInChain } from '../errors.js';

/**
 * Why a command line was refused: `Help` (-h or -help asked for the usage), `Undefined` (a flag the program does not
 * define), `MissingValue` (a non-boolean flag last, with no value), `InvalidValue` (a value its type cannot parse),
 * `BadSyntax` (`---x`, `-=x`) or `UnexpectedArgument` (an argument after the flags, where the program takes none).
 */
export type FlagErrorReason =
  'Help' | 'Undefined' | 'MissingValue' | 'InvalidValue' | 'BadSyntax' | 'UnexpectedArgument';

/**
 * A command line that parseFlags refused, with Go's flag package's message (`flag provided but not defined: -foo`,
 * `flag needs an argument: -metrics-bind-address`, ...). `reason` says which kind; a `Help` one is not a mistake but
 * a request for the usage (Go's flag.ErrHelp).
 */
export class FlagError extends Error {
  /** Which kind of refusal: Help, Undefined, MissingValue, InvalidValue, BadSyntax or UnexpectedArgument. */
  readonly reason: FlagErrorReason;
  /** The flag's name as given, without dashes, when the error is about one flag. */
  readonly flag: string | undefined;
  constructor(message: string, reason: FlagErrorReason, flag?: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'FlagError';
    this.reason = reason;
    this.flag = flag;
  }
}

/**
 * True when `err` (or an error in its cause chain, as the runtime's other isX predicates follow it) is a FlagError;
 * with `reason`, only one for that reason.
 */
export function isFlagError(err: unknown, reason?: FlagErrorReason): err is FlagError {
  const found = findInChain(err, FlagError);
  return found !== undefined && (reason === undefined || found.reason === reason);
}
