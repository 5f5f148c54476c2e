import { afterEach, describe, expect, it, vi } from 'vitest';
import { describeFailure, exitCodeOf, main } from '../../src/cli/index.js';
import { ScaffoldError, UserError } from '../../src/errors.js';
import { ClusterError } from '../../src/cluster/index.js';
import { KustomizeError } from '../../src/kustomize/index.js';

afterEach(() => vi.restoreAllMocks());

describe('how a failed command is reported', () => {
  it("prints a user's mistake as its message alone, with no stack trace", () => {
    const text = describeFailure(new ScaffoldError('PROJECT is missing; run scaffold init first'), [
      'node',
      'scaffold',
      'create',
      'api',
    ]);
    expect(text).toBe('Error: PROJECT is missing; run scaffold init first');
  });

  it('adds the cause of a user error when its message does not already say it', () => {
    const err = new ClusterError('cannot reach the cluster', {
      cause: new Error('connect ECONNREFUSED 127.0.0.1:6443'),
    });
    expect(describeFailure(err, [])).toBe(
      'Error: cannot reach the cluster\n  caused by: connect ECONNREFUSED 127.0.0.1:6443',
    );
  });

  it('prints anything else as a bug: the stack, the version, and what to report', () => {
    const text = describeFailure(new TypeError("Cannot read properties of undefined (reading 'x')"), [
      'node',
      'scaffold',
      'manifests',
      '--paths',
      'api',
    ]);
    expect(text).toMatch(/^TypeError: Cannot read properties of undefined \(reading 'x'\)\n\s+at /);
    expect(text).toMatch(/This is a bug in kubescaffold \d+\.\d+\.\d+/);
    expect(text).toContain('scaffold manifests --paths api');
  });

  it("prints readline's Ctrl-C at a question as one line, exit code 130, not as a bug", () => {
    const ctrlC = Object.assign(new Error('Aborted with Ctrl+C'), { name: 'AbortError', code: 'ABORT_ERR' });
    expect(describeFailure(ctrlC, ['node', 'scaffold', 'envtest', 'use'])).toBe('Interrupted (Ctrl-C).');
    expect(exitCodeOf(ctrlC)).toBe(130);
    expect(exitCodeOf(new ScaffoldError('x'))).toBe(1);
    expect(exitCodeOf(new TypeError('x'))).toBe(1);
  });

  it('makes every error type of the CLI and the generators a UserError', () => {
    for (const e of [new ScaffoldError('x'), new ClusterError('x'), new KustomizeError('x')])
      expect(e).toBeInstanceOf(UserError);
  });

  it('exits with the error code and prints the message when a command refuses its input', async () => {
    const printed: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((m: unknown) => void printed.push(String(m)));
    const code = await main(['node', 'scaffold', 'build', '/no/such/dir']);
    expect(code).toBe(1);
    expect(printed.join('\n')).toMatch(/^Error: .*\/no\/such\/dir/);
    expect(printed.join('\n')).not.toContain('    at ');
  });

  it('answers a usage error with its line, the usage line and where the help is, not the whole help above it', async () => {
    for (const [argv, error, usage] of [
      [
        ['create', 'api', '--group', 'crew', '--version', 'v1'],
        "error: required option '--kind <kind>' not specified",
        'scaffold create api [options]',
      ],
      [['manifest'], "error: unknown command 'manifest'\n(Did you mean manifests?)", 'scaffold [options] [command]'],
      [
        ['create', 'api', '--grop', 'crew', '--version', 'v1', '--kind', 'Captain'],
        "error: unknown option '--grop'\n(Did you mean --group?)",
        'scaffold create api [options]',
      ],
    ] as const) {
      let printed = '';
      vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => {
        printed += String(s);
        return true;
      });
      const code = await main(['node', 'scaffold', ...argv]);
      vi.restoreAllMocks();
      const command = usage.split(' [')[0]!;
      const see = argv[0] === 'manifest' ? 'its commands' : 'its flags and examples';
      expect([code, printed], argv.join(' ')).toEqual([
        1,
        `${error}\nUsage: ${usage}\nSee \`${command} --help\` for ${see}.\n`,
      ]);
    }
  });

  it('names a mistyped flag, with a suggestion, before saying that the flag it was meant to be is missing', async () => {
    // Every command that has required flags (create api, create webhook, envtest stop), one of them misspelt.
    for (const [argv, typo, meant] of [
      [['create', 'api', '--group', 'crew', '--versoin', 'v1', '--kind', 'Captain'], '--versoin', '--version'],
      [['create', 'api', '--version', 'v1', '--knid', 'Captain'], '--knid', '--kind'],
      [['create', 'webhook', '--versoin', 'v1', '--kind', 'Captain', '--defaulting'], '--versoin', '--version'],
      [['envtest', 'stop', '--kubeconfig-ou', 'bin/k'], '--kubeconfig-ou', '--kubeconfig-out'],
    ] as const) {
      let printed = '';
      vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => {
        printed += String(s);
        return true;
      });
      const code = await main(['node', 'scaffold', ...argv]);
      vi.restoreAllMocks();
      expect([code, printed.split('\n').slice(0, 2)], argv.join(' ')).toEqual([
        1,
        [`error: unknown option '${typo}'`, `(Did you mean ${meant}?)`],
      ]);
    }
  });
});
