import { describe, expect, it, vi } from 'vitest';
import { isConfigurationError } from '../../../src/runtime/errors.js';
import { newLogger, parseLogLevel, type LogLevel } from '../../../src/runtime/log/index.js';

function capture(level: LogLevel = 'info') {
  const lines: Record<string, unknown>[] = [];
  const logger = newLogger({
    level,
    sink: (l) => lines.push(JSON.parse(l) as Record<string, unknown>),
    now: () => new Date(0),
  });
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

  it("does not repeat a cause whose first line the wrapper already quotes (a parser's message and its code frame)", () => {
    const { logger, lines } = capture('error');
    const parserError = new Error('null byte is not allowed in input (1:1)\n\n 1 | \u0000\n-----^');
    logger.error(
      new Error('kubeconfig secret/a: not valid YAML: null byte is not allowed in input (1:1)', { cause: parserError }),
      'refused',
    );
    expect(lines).toEqual([
      expect.objectContaining({
        error: 'kubeconfig secret/a: not valid YAML: null byte is not allowed in input (1:1)',
      }),
    ]);
  });

  it('survives values JSON cannot encode', () => {
    const { logger, lines } = capture();
    const cyc: Record<string, unknown> = {};
    cyc.self = cyc;
    logger.info('odd', { big: 10n, cyc, fn: () => 1 });
    expect(lines[0]).toMatchObject({ big: '10', cyc: { self: '[Circular]' } });
  });

  it("adds the error's stack at debug level only", () => {
    const err = new Error('boom');
    const { logger: atInfo, lines: infoLines } = capture('info');
    atInfo.error(err, 'failed');
    expect(infoLines[0]).not.toHaveProperty('stacktrace');
    const { logger: atDebug, lines: debugLines } = capture('debug');
    atDebug.error(err, 'failed', { k: 1 });
    expect(debugLines[0]).toMatchObject({ error: 'boom', k: 1, stacktrace: err.stack });
  });

  it('never throws from a failing sink', () => {
    const logger = newLogger({
      sink: () => {
        throw new Error('closed');
      },
    });
    expect(() => logger.info('x')).not.toThrow();
  });

  it('parses LOG_LEVEL names and logr verbosities', () => {
    expect(parseLogLevel('DEBUG')).toBe('debug');
    expect(parseLogLevel('error')).toBe('error');
    expect(parseLogLevel('2')).toBe('debug');
    expect(parseLogLevel('0')).toBe('info');
    expect(parseLogLevel(undefined)).toBe('info');
    expect(parseLogLevel('warn')).toBe('info');
  });

  it('refuses a level it does not know with a ConfigurationError naming the value', () => {
    let caught: unknown;
    try {
      parseLogLevel('loud');
    } catch (err) {
      caught = err;
    }
    expect(isConfigurationError(caught)).toBe(true);
    expect((caught as Error).message).toContain('"loud"');
  });

  it('does not read LOG_LEVEL when the module is imported: the root logger stays at info until configured', async () => {
    vi.stubEnv('LOG_LEVEL', 'debug');
    vi.resetModules();
    try {
      const fresh = await import('../../../src/runtime/log/index.js');
      const lines: string[] = [];
      fresh.configureLog({ sink: (l) => lines.push(l) });
      fresh.log.debug('hidden');
      fresh.log.info('shown');
      expect(lines.map((l) => (JSON.parse(l) as { msg: string }).msg)).toEqual(['shown']);
      fresh.configureLog({ level: 'debug' });
      fresh.log.debug('now shown');
      expect(lines).toHaveLength(2);
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
