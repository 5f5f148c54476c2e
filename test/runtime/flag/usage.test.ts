import { describe, expect, it } from 'vitest';
import { flagUsage } from '@kubescaffold/runtime';

describe('flagUsage', () => {
  it("lists the flags in name order in Go's format: type after the name (none for a bool), help on the next line, non-zero defaults", () => {
    const usage = flagUsage(
      {
        'webhook-port': { type: 'int', default: 9443, usage: 'The port the webhook server serves on.' },
        'metrics-secure': { type: 'bool', default: true, usage: 'Serve metrics over HTTPS.' },
        'leader-elect': { type: 'bool', default: false, usage: 'Enable leader election.' },
        'metrics-bind-address': {
          type: 'string',
          default: ':8443',
          usage: 'The address the metrics endpoint binds to.',
        },
        'metrics-cert-path': { type: 'string', default: '', usage: 'The directory of the certificate.' },
        retries: { type: 'int', default: 0, usage: 'Retries.' },
      },
      { name: 'manager' },
    );
    expect(usage).toBe(
      [
        'Usage of manager:',
        '  -leader-elect',
        '    \tEnable leader election.',
        '  -metrics-bind-address string',
        '    \tThe address the metrics endpoint binds to. (default ":8443")',
        '  -metrics-cert-path string',
        '    \tThe directory of the certificate.',
        '  -metrics-secure',
        '    \tServe metrics over HTTPS. (default true)',
        '  -retries int',
        '    \tRetries.',
        '  -webhook-port int',
        '    \tThe port the webhook server serves on. (default 9443)',
        '',
      ].join('\n'),
    );
  });

  it("puts a one-letter bool's help on its line, continues multi-line help indented, and quotes string defaults as Go's %q", () => {
    const usage = flagUsage(
      {
        v: { type: 'bool', default: false, usage: 'Verbose.' },
        s: { type: 'string', default: 'a"b\n', usage: 'First line.\nSecond line.' },
      },
      { name: 'tool' },
    );
    expect(usage).toBe(
      [
        'Usage of tool:',
        '  -s string',
        '    \tFirst line.',
        '    \tSecond line. (default "a\\"b\\n")',
        '  -v\tVerbose.',
        '',
      ].join('\n'),
    );
  });

  it("writes a duration's default as Go's time.Duration String does", () => {
    const defaults = [90_000, 500, 3_600_000, 1_500, 0.25, 60_000, 0];
    const usage = flagUsage(
      Object.fromEntries(defaults.map((ms, i) => [`d${i}`, { type: 'duration', default: ms, usage: 'A duration.' }])),
      { name: 'manager' },
    );
    expect(usage.split('\n').filter((l) => l.includes('\t'))).toEqual([
      '    \tA duration. (default 1m30s)',
      '    \tA duration. (default 500ms)',
      '    \tA duration. (default 1h0m0s)',
      '    \tA duration. (default 1.5s)',
      '    \tA duration. (default 250µs)',
      '    \tA duration. (default 1m0s)',
      '    \tA duration.',
    ]);
    expect(usage).toContain('  -d0 duration\n');
  });

  it("names the program by the script's file name when no name is given", () => {
    const saved = process.argv;
    process.argv = ['node', '/app/dist/cmd/main.js'];
    try {
      expect(flagUsage({}).split('\n')[0]).toBe('Usage of main.js:');
    } finally {
      process.argv = saved;
    }
  });
});
