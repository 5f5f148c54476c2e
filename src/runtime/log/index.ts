import { loggerOver, stderrSink, type LogLevel, type LogSettings, type Logger } from './logger.js';

export { newLogger, parseLogLevel, stderrSink, describeError } from './logger.js';
export type { Logger, LogLevel, LogSettings } from './logger.js';
export { enableSourceMaps } from './source-maps.js';

// Nothing is read from the environment here: the program's main (or a test) sets the level with configureLog, as a
// Go manager calls ctrl.SetLogger, so importing the runtime never depends on the process it lands in.
const rootSettings: LogSettings = { level: 'info', sink: stderrSink, now: () => new Date() };

/**
 * The root logger (controller-runtime's log.Log): JSON lines on stderr at info level until configureLog says
 * otherwise. The manager, controllers and informers derive their loggers from it unless given one.
 */
export const log: Logger = loggerOver(rootSettings);

/** Changes the root logger's level or destination; loggers already derived from `log` follow. */
export function configureLog(opts: { level?: LogLevel; sink?: (line: string) => void }): void {
  if (opts.level !== undefined) rootSettings.level = opts.level;
  if (opts.sink !== undefined) rootSettings.sink = opts.sink;
}
