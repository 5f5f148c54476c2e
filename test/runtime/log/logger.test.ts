import { describe, expect, it } from 'vitest';
import { newLogger, parseLogLevel, type LogLevel } from '../../../src/runtime/log/index.js';

function capture(level: LogLevel = 'info') {
  const lines: Record<string, unknown>[] = [];
  const logger = newLogger({ level, sink: (l) => lines.push(JSON.parse(l) as Record<string, unknown>), now: () => new Date(0) });
  return { logger, lines };
}

describe('logger', () => {
  it('writes one JSON object per call with level, ts, msg and key/values', () => {
    const { logger, lines } = capture();
    logger.info('hello', { a: 1 });
    expect(lines).toEqual([{ level: 'info', ts: '1970-01-01T00:00:00.000Z', msg: 'hello', a: 1 }]);
  });

  it('joins names with dots and carries values into derived loggers', () => {
    const { logger, lines } = capture();
    logger.withName('controller').withName('captain').withValues({ namespace: 'ns' }).info('x', { name: 'n' });
    expect(lines[0]).toMatchObject({ logger: 'controller.captain', namespace: 'ns', name: 'n' });
  });

  it('drops debug lines at info level and keeps them at debug', () => {
    const info = capture('info');
    info.logger.debug('hidden');
    expect(info.lines).toHaveLength(0);
    const debug = capture('debug');
    debug.logger.debug('shown');
    expect(debug.lines).toHaveLength(1);
  });

  it('renders an error with its cause chain under "error"', () => {
    const { logger, lines } = capture('error');
    logger.info('dropped');
    logger.error(new Error('outer', { cause: new Error('inner') }), 'failed', { k: 'v' });
    expect(lines).toEqual([expect.objectContaining({ level: 'error', msg: 'failed', error: 'outer: inner', k: 'v' })]);
  });

  it('survives values JSON cannot encode', () => {
    const { logger, lines } = capture();
    const cyc: Record<string, unknown> = {};
    cyc.self = cyc;
    logger.info('odd', { big: 10n, cyc, fn: () => 1 });
    expect(lines[0]).toMatchObject({ big: '10', cyc: { self: '[Circular]' } });
  });

  it('never throws from a failing sink', () => {
    const logger = newLogger({ sink: () => { throw new Error('closed'); } });
    expect(() => logger.info('x')).not.toThrow();
  });

  it('parses LOG_LEVEL names and logr verbosities', () => {
    expect(parseLogLevel('DEBUG')).toBe('debug');
    expect(parseLogLevel('error')).toBe('error');
    expect(parseLogLevel('2')).toBe('debug');
    expect(parseLogLevel('0')).toBe('info');
    expect(parseLogLevel(undefined)).toBe('info');
  });
});
