/** Structured JSON-lines logging, shaped like logr: a name path plus key/values carried by each derived logger. */
import { ConfigurationError } from '../errors.js';

/** The log levels, least to most severe: debug, info, error. */
export type LogLevel = 'debug' | 'info' | 'error';

/**
 * A structured logger (logr.Logger's shape): one JSON line per call with level, time, logger name, message and
 * key/values.
 */
export interface Logger {
  /** Logs at info level. */
  info(msg: string, kv?: Record<string, unknown>): void;
  /**
   * Logs at error level; `err` is rendered as its message (and its cause chain) under the `error` key, and, when the
   * level is debug, its stack under `stacktrace`.
   */
  error(err: unknown, msg: string, kv?: Record<string, unknown>): void;
  /** Logs at debug level (dropped unless the level is debug). */
  debug(msg: string, kv?: Record<string, unknown>): void;
  /** A logger whose name is this one's name plus `.name`. */
  withName(name: string): Logger;
  /**
   * A logger that adds `kv` to every line it writes. `kv` is kept as given and read when a line is written, so it
   * may hold a getter for a value that costs something to make (the controller's reconcileID); do not change it later.
   */
  withValues(kv: Record<string, unknown>): Logger;
}

/** Where lines go and which are kept; shared by every logger derived from one root, so changing it affects them all. */
export interface LogSettings {
  /** Lines below this level are dropped. */
  level: LogLevel;
  /** Receives one JSON object per call, without the trailing newline. */
  sink: (line: string) => void;
  /** The clock the lines' timestamps come from. */
  now: () => Date;
}

const severity: Record<LogLevel, number> = { debug: 0, info: 1, error: 2 };

/**
 * Reads a level name (debug, info, error; warn counts as info) or a logr verbosity (a number: above 0 means debug),
 * as zap's --zap-log-level flag does. Nothing at all means info; anything else is a ConfigurationError, so a typo in a
 * flag or a manifest stops the manager instead of logging at a level nobody asked for.
 */
export function parseLogLevel(value: string | undefined): LogLevel {
  const v = (value ?? '').trim().toLowerCase();
  if (v === '') return 'info';
  if (v === 'debug' || v === 'info' || v === 'error') return v;
  if (v === 'warn' || v === 'warning') return 'info';
  if (/^\d+$/.test(v)) return Number(v) > 0 ? 'debug' : 'info';
  throw new ConfigurationError(
    `invalid log level ${JSON.stringify(value)}: use debug, info, error or a verbosity number`,
  );
}

/** The default sink: writes each line to stderr. */
export function stderrSink(line: string): void {
  process.stderr.write(line + '\n');
}

/** A root logger with its own settings (info to stderr unless told otherwise). */
export function newLogger(settings: Partial<LogSettings> = {}): Logger {
  return loggerOver({
    level: settings.level ?? 'info',
    sink: settings.sink ?? stderrSink,
    now: settings.now ?? (() => new Date()),
  });
}

/** A root logger that reads `settings` on every call, so later changes to the object take effect. */
export function loggerOver(settings: LogSettings): Logger {
  return new JsonLogger(settings, '', {});
}

class JsonLogger implements Logger {
  // A logger made by withValues keeps its own values apart from its parent's until it writes a line or makes a child:
  // a controller makes one per reconcile, and most of those never log.
  private merged: Record<string, unknown> | undefined;

  constructor(
    private readonly settings: LogSettings,
    private readonly name: string,
    private readonly parentValues: Record<string, unknown>,
    private readonly ownValues?: Record<string, unknown>,
  ) {}

  private get values(): Record<string, unknown> {
    if (this.ownValues === undefined) return this.parentValues;
    return (this.merged ??= { ...this.parentValues, ...this.ownValues });
  }

  info(msg: string, kv?: Record<string, unknown>): void {
    this.write('info', msg, kv, undefined);
  }

  debug(msg: string, kv?: Record<string, unknown>): void {
    this.write('debug', msg, kv, undefined);
  }

  error(err: unknown, msg: string, kv?: Record<string, unknown>): void {
    // At debug level an error line also carries the error's stack (zap's development mode adds a stacktrace too);
    // with source maps enabled, its frames name the TypeScript sources.
    const stack =
      this.settings.level === 'debug' && err instanceof Error && err.stack ? { stacktrace: err.stack } : undefined;
    this.write(
      'error',
      msg,
      stack ? { ...kv, ...stack } : kv,
      err === undefined || err === null ? undefined : describeError(err),
    );
  }

  withName(name: string): Logger {
    return new JsonLogger(this.settings, this.name === '' ? name : `${this.name}.${name}`, this.values);
  }

  // kv is kept, not copied: its values are read when a line is written (a getter among them is read then).
  withValues(kv: Record<string, unknown>): Logger {
    return new JsonLogger(this.settings, this.name, this.values, kv);
  }

  private write(level: LogLevel, msg: string, kv: Record<string, unknown> | undefined, err: string | undefined): void {
    if (severity[level] < severity[this.settings.level]) return;
    const entry: Record<string, unknown> = { level, ts: this.settings.now().toISOString() };
    if (this.name !== '') entry.logger = this.name;
    entry.msg = msg;
    Object.assign(entry, this.values, kv);
    if (err !== undefined) entry.error = err;
    let line: string;
    try {
      line = JSON.stringify(entry, safeReplacer());
    } catch (e) {
      // A value whose toJSON throws must not turn a log call into a crash.
      line = JSON.stringify({ level, ts: entry.ts, logger: entry.logger, msg, logError: String(e) });
    }
    try {
      this.settings.sink(line);
    } catch {
      // Logging never throws into the caller (a closed stderr, a throwing test sink).
    }
  }
}

/** Message of an error and of its causes, `a: b: c`, as Go's wrapped errors print. */
export function describeError(err: unknown): string {
  const parts: string[] = [];
  let cur: unknown = err;
  for (let depth = 0; cur !== undefined && cur !== null && depth < 8; depth++) {
    if (cur instanceof Error) {
      const m = cur.message === '' ? cur.name : cur.message;
      // A wrapper that already quotes its cause's message (`failed: boom`) should not print it twice. A wrapper often
      // quotes only the first line of a parser's message, whose other lines are a code frame.
      const firstLine = m.split('\n', 1)[0]?.trim() ?? m;
      if (!parts.some((p) => p.includes(firstLine))) parts.push(m);
      cur = cur.cause;
    } else {
      parts.push(typeof cur === 'string' ? cur : safeString(cur));
      break;
    }
  }
  return parts.join(': ');
}

function safeString(v: unknown): string {
  try {
    return typeof v === 'object' ? JSON.stringify(v) : String(v);
  } catch {
    return String(v);
  }
}

/** Renders values JSON cannot: bigint, Error, cycles, functions. */
function safeReplacer(): (this: unknown, key: string, value: unknown) => unknown {
  const seen = new WeakSet<object>();
  return function (_key, value) {
    if (typeof value === 'bigint') return value.toString();
    if (typeof value === 'function') return `[function ${value.name || 'anonymous'}]`;
    if (typeof value === 'symbol') return value.toString();
    if (value instanceof Error) return describeError(value);
    if (value instanceof Map) return Object.fromEntries(value);
    if (value instanceof Set) return [...value];
    if (typeof value === 'object' && value !== null) {
      if (seen.has(value)) return '[Circular]';
      seen.add(value);
    }
    return value;
  };
}
