import type { FlagDefinitions } from './definitions.js';
import { programName } from './parse.js';
import { formatDuration, goQuote } from './values.js';

/**
 * The usage listing Go's flag package prints (FlagSet.Usage, PrintDefaults): `Usage of NAME:`, then each flag in
 * name order as `  -name type` (no type for a bool) and its help on the next line after four spaces and a tab, with
 * `(default x)` unless the default is the zero value (false, 0, ""); a string default is quoted. Ends with a newline.
 */
export function flagUsage(definitions: FlagDefinitions, options: { name?: string } = {}): string {
  let out = `Usage of ${programName(options)}:\n`;
  for (const name of Object.keys(definitions).sort()) {
    const def = definitions[name]!;
    let line = `  -${name}`;
    if (def.type !== 'bool') line += ` ${def.type}`;
    // Go puts a one-letter bool's help on the same line.
    line += line.length <= 4 ? '\t' : '\n    \t';
    line += def.usage.replaceAll('\n', '\n    \t');
    // Go quotes a string's default and prints a flag.Value's text as it is.
    if (def.type === 'string' && def.default !== '') line += ` (default ${goQuote(def.default)})`;
    else if (def.type === 'value' && def.default !== '') line += ` (default ${def.default})`;
    else if (def.type === 'duration' && def.default !== 0) line += ` (default ${formatDuration(def.default)})`;
    else if ((def.type === 'bool' || def.type === 'int') && def.default !== false && def.default !== 0)
      line += ` (default ${def.default})`;
    out += line + '\n';
  }
  return out;
}
