import { ShutdownError } from '../errors.js';
let installed: AbortSignal | undefined;

/**
 * An AbortSignal aborted on the first SIGTERM or SIGINT; a second signal exits the process with code 1
 * (the operator asked twice, so a stuck shutdown must not hold the pod). Calling it again returns the same signal.
 */
export function setupSignalHandler(): AbortSignal {
  if (installed !== undefined) return installed;
  const controller = new AbortController();
  const onSignal = (sig: NodeJS.Signals): void => {
    if (controller.signal.aborted) process.exit(1);
    controller.abort(new ShutdownError(`received ${sig}`));
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  installed = controller.signal;
  return installed;
}
