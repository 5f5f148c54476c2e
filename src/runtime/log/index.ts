import { loggerOver, parseLogLevel, stderrSink, type LogLevel, type LogSettings, type Logger } from './logger.js';

export { newLogger, parseLogLevel, stderrSink, describeError } from './logger.js';
export type { Logger, LogLevel, LogSettings } from './logger.js';
export { enableSourceMaps } from './source-maps.js';

const rootSettings: LogSettings = { level: parseLogLevel(process.env.LOG_LEVEL), sink: stderrSink, now: () => new Date() };

/** The root logger: JSON lines on stderr at the level named by LOG_LEVEL (debug, info, error; default info). */
export const log: Logger = loggerOver(rootSettings);

/** Changes the root logger's level or destination; loggers already derived from `log` follow. */
export function configureLog(opts: { level?: LogLevel; sink?: (line: string) => void }): void {
  if (opts.level !== undefined) rootSettings.level = opts.level;
  if (opts.sink !== undefined) rootSettings.sink = opts.sink;
}
