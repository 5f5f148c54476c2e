import type { FlagDefinitions } from './definitions.js';
import { FlagError } from './errors.js';
import { parseFlags, type ParseFlagsOptions, type ParsedFlags } from './parse.js';
import { flagUsage } from './usage.js';

/**
 * parseFlags for a program's main, with Go's flag.ExitOnError policy: a refused command line prints the message and
 * the usage listing on stderr and exits with status 2, no stack trace; -h or -help prints the usage and exits 0 (on
 * stdout, where Go writes it to stderr: asked-for help is the program's output, and `--help | less` shows it).
 * Anything else parseFlags throws is not caught.
 *
 * @param definitions - the flags, by name: their type, default and help
 * @param argv - the arguments, without Node and the script; default `process.argv.slice(2)`
 */
export function parseFlagsOrExit<const D extends FlagDefinitions>(
  definitions: D,
  argv: readonly string[] = process.argv.slice(2),
  options: ParseFlagsOptions = {},
): ParsedFlags<D> {
  try {
    return parseFlags(definitions, argv, options);
  } catch (err) {
    if (!(err instanceof FlagError)) throw err;
    const usage = flagUsage(definitions, options);
    if (err.reason === 'Help') {
      process.stdout.write(usage);
      return process.exit(0);
    }
    process.stderr.write(`${err.message}\n${usage}`);
    return process.exit(2);
  }
}
