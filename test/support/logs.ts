import { newLogger, type Logger } from '../../src/runtime/index.js';

/** A logger whose lines a test keeps, to show in a failure message, and prints as well when TEST_LOG_LEVEL is set. */
export interface CapturedLog {
  log: Logger;
  /** Every line logged, oldest first. */
  readonly lines: string[];
  /** The last `n` lines, one per line, prefixed with `label`. */
  tail(n?: number): string;
  /** As a report for showOnFailure: the tail, with the lines cleared before each test. */
  readonly onFailure: { report(): string; reset(): void };
}

/** Captures a logger's lines at `level` (debug unless TEST_LOG_LEVEL says otherwise), labelled for diagnostics. */
export function captureLog(label: string): CapturedLog {
  const lines: string[] = [];
  const echo = process.env.TEST_LOG_LEVEL !== undefined;
  const level =
    process.env.TEST_LOG_LEVEL === 'info' || process.env.TEST_LOG_LEVEL === 'error'
      ? process.env.TEST_LOG_LEVEL
      : 'debug';
  const log = newLogger({
    level,
    sink: (line) => {
      lines.push(line);
      if (echo) console.log(`[${label}] ${line}`);
    },
  });
  const tail = (n = 60): string =>
    [`--- last ${Math.min(n, lines.length)} of ${lines.length} log lines of ${label} ---`, ...lines.slice(-n)].join(
      '\n',
    );
  return { log, lines, tail, onFailure: { report: () => tail(), reset: () => void lines.splice(0) } };
}
