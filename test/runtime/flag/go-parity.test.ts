import { execFileSync } from 'node:child_process';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { FlagError, flagUsage, parseFlags } from '@kubescaffold/runtime';
import { hasGo } from '../../../scripts/lib/controller-gen.js';
import { tempDir } from '../../support/files.js';
import { GO_BUILD_MS } from '../../support/limits.js';
import { peerAvailable } from '../../support/peers.js';

// The flags of test/runtime/fixtures/go-flag/main.go, which parses the same command lines with Go's flag package.
const defs = {
  'leader-elect': { type: 'bool', default: false, usage: 'Enable leader election.' },
  'metrics-secure': { type: 'bool', default: true, usage: 'Serve metrics over HTTPS.' },
  'metrics-bind-address': {
    type: 'string',
    default: '0',
    usage: 'The address the metrics endpoint binds to.\nUse 0 to disable it.',
  },
  'metrics-cert-path': { type: 'string', default: '', usage: 'The directory of the certificate.' },
  'webhook-port': { type: 'int', default: 9443, usage: 'The port the webhook server serves on.' },
  v: { type: 'bool', default: false, usage: 'Verbose.' },
  'zap-log-level': { type: 'value', default: 'info', parse: zapLevel, usage: 'The log level.' },
  'health-interval': { type: 'duration', default: 10_000, usage: 'How often each cluster is asked for /readyz.' },
} as const;

/** The Go twin's levelFlag.Set: a level name or a positive verbosity. */
function zapLevel(text: string): string {
  if (['debug', 'info', 'error'].includes(text) || (/^[+-]?\d+$/.test(text) && Number(text) > 0)) return text;
  throw new Error(`invalid log level ${JSON.stringify(text)}`);
}

const cases: string[][] = [
  [],
  ['--leader-elect=true'],
  ['-leader-elect'],
  ['--metrics-secure=false'],
  ...['1', '0', 't', 'f', 'T', 'F', 'TRUE', 'FALSE', 'True', 'False', 'yes', ''].map((b) => [`-leader-elect=${b}`]),
  ['-leader-elect', 'false'],
  ['-v', '--metrics-bind-address', ':8443', '-webhook-port=8443'],
  ['--metrics-bind-address', '-leader-elect'],
  ['--metrics-bind-address'],
  ['--metrics-cert-path='],
  ...[
    'abc',
    '1.5',
    '0x1f',
    '0x_1f',
    '0o17',
    '017',
    '08',
    '0b101',
    '1_000',
    '1__0',
    '_1',
    '-5',
    '+5',
    '99999999999999999999',
    '\t',
  ].map((n) => [`--webhook-port=${n}`]),
  ['--webhook-port'],
  ...[
    '1m30s',
    '500ms',
    '1.5h',
    '2h45m',
    '1h2m3.5s',
    '0',
    '+0',
    '-2s',
    '.5s',
    '1.s',
    '0.3s',
    '1.0001ms',
    '3µs',
    '3us',
    '7ns',
    '10',
    '5x',
    '1e3s',
    '.s',
    's',
    '',
    '-',
    '2562047h',
    '2562048h',
    '1m-1s',
  ].map((d) => [`--health-interval=${d}`]),
  ['-health-interval', '90s'],
  ...['debug', '3', 'loud', '0', ''].map((l) => [`--zap-log-level=${l}`]),
  ['-zap-log-level', 'error'],
  ['-zap-log-level'],
  ['--bogus'],
  ['-bogus=1'],
  ['---x'],
  ['-=x'],
  ['-', '--leader-elect'],
  ['--', '--leader-elect'],
  ['run', '--leader-elect'],
  ['-h'],
  ['--help'],
  ['-help=3'],
];

interface Outcome {
  output: string;
  error: string;
  values?: Record<string, unknown>;
  args: string[];
}

/** What parseFlags does with `argv`, in the shape the Go twin reports (values only on success, as Go's are then set). */
function ours(argv: string[]): Outcome {
  try {
    const { values, args } = parseFlags(defs, argv, { name: 'manager', allowArgs: true });
    return { output: '', error: '', values, args };
  } catch (err) {
    if (!(err instanceof FlagError)) throw err;
    const usage = flagUsage(defs, { name: 'manager' });
    return { output: err.reason === 'Help' ? usage : `${err.message}\n${usage}`, error: err.message, args: [] };
  }
}

const available = peerAvailable(
  "parity with Go's flag package",
  hasGo() ? undefined : 'Go is not installed (it builds the flag twin)',
);
const work = tempDir('go-flag-');
afterAll(() => work.remove());

describe.skipIf(!available)("parseFlags against Go's flag package", () => {
  it(
    'accepts, refuses, prints and leaves arguments as Go does, message for message',
    () => {
      const dir = join(work.path, 'go-flag');
      cpSync(fileURLToPath(new URL('../fixtures/go-flag', import.meta.url)), dir, { recursive: true });
      const env = { ...process.env, GOWORK: 'off', GOFLAGS: '-mod=mod' };
      execFileSync('go', ['build', '-o', 'go-flag', '.'], { cwd: dir, env, stdio: 'ignore' });
      const theirs = JSON.parse(
        execFileSync(join(dir, 'go-flag'), { input: JSON.stringify(cases), encoding: 'utf8' }),
      ) as Outcome[];
      expect(theirs).toHaveLength(cases.length);
      cases.forEach((argv, i) => {
        const go = theirs[i]!;
        expect(ours(argv), JSON.stringify(argv)).toEqual(go.error === '' ? go : { ...go, values: undefined, args: [] });
      });
    },
    GO_BUILD_MS,
  );
});
