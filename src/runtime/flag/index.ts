// Command-line flags parsed as Go's flag package parses them, so that a manager's flags behave as a kubebuilder
// project's do: parseFlags (throws FlagError), parseFlagsOrExit for a main (Go's flag.ExitOnError) and flagUsage.
export type {
  BoolFlag,
  StringFlag,
  IntFlag,
  DurationFlag,
  ValueFlag,
  FlagDefinition,
  FlagDefinitions,
  FlagValue,
  FlagValues,
} from './definitions.js';
export { FlagError, isFlagError, type FlagErrorReason } from './errors.js';
export { parseFlags, type ParseFlagsOptions, type ParsedFlags } from './parse.js';
export { parseFlagsOrExit } from './exit-on-error.js';
export { flagUsage } from './usage.js';
