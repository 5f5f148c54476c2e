import { spawnSync } from 'node:child_process';
import { ScaffoldError } from '../../../errors.js';
import { firstInvalidByte } from '../../../files/utf8.js';
import type { ExternalPlugin } from './discover.js';
import { parseResponse, type PluginRequest, type PluginResponse } from './protocol.js';

/** The most a plugin may write on standard output; a bigger answer is refused rather than held in memory. */
export const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/**
 * Runs the plugin with `request` on its standard input in `cwd` (kubebuilder runs it in the project, where plugins
 * read PROJECT), and returns its checked answer; its standard error goes to ours. Throws a ScaffoldError naming the
 * plugin when it cannot be run, exits with an error, or answers with more than MAX_RESPONSE_BYTES, bytes that are not
 * UTF-8, or something that is not a PluginResponse. An `error: true` answer is returned, not thrown: the caller says
 * what was being done.
 */
export function callPlugin(plugin: ExternalPlugin, request: PluginRequest, cwd: string): PluginResponse {
  return parseResponse(exchange(plugin, request, cwd), plugin.key);
}

/** Runs the plugin with `request` and returns what it wrote on standard output, checked as callPlugin checks it. */
export function exchange(plugin: ExternalPlugin, request: PluginRequest, cwd: string): string {
  const result = spawnSync(plugin.path, [], {
    cwd,
    input: JSON.stringify(request),
    stdio: ['pipe', 'pipe', 'inherit'],
    maxBuffer: MAX_RESPONSE_BYTES,
  });
  const name = `plugin ${plugin.key} (${plugin.path})`;
  const code = (result.error as NodeJS.ErrnoException | undefined)?.code;
  // a plugin that exits without reading all of its input is fine, as Go's os/exec ignores that EPIPE too
  if (result.error && !(code === 'EPIPE' && result.status !== null)) {
    if (code === 'ENOBUFS')
      throw new ScaffoldError(
        `${name} wrote more than ${MAX_RESPONSE_BYTES / 1024 / 1024} MiB on standard output for \`${request.command}\`; a PluginResponse holds only the files it scaffolds`,
      );
    throw new ScaffoldError(
      `${name} could not be run for \`${request.command}\`: ${result.error.message}${code === 'ENOEXEC' || code === 'EACCES' ? ' (does it start with a #! line, and is it executable?)' : ''}`,
    );
  }
  if (result.status !== 0)
    throw new ScaffoldError(
      `${name} ${result.signal ? `was killed by ${result.signal}` : `exited with status ${result.status}`} for \`${request.command}\`${result.stdout.length > 0 ? '' : ' and wrote nothing on standard output'}; see its messages above`,
    );
  const bad = firstInvalidByte(result.stdout);
  if (bad < result.stdout.length)
    throw new ScaffoldError(
      `${name} answered \`${request.command}\` with bytes that are not UTF-8 (the first at offset ${bad} of its output); a PluginResponse is JSON text`,
    );
  return result.stdout.toString('utf8');
}
