import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { completionScript } from '../../src/cli/completion.js';
import { buildProgram } from '../../src/cli/index.js';
import { tempDir } from '../support/files.js';
import { onPath, peerAvailable } from '../support/peers.js';

// Each script is loaded into the real shell, which is asked for completions as it would be at a prompt.
const dir = tempDir('kubescaffold-completion-');
afterAll(() => dir.remove());
const script = (shell: 'bash' | 'zsh' | 'fish'): string => {
  const file = join(dir.path, `scaffold.${shell}`);
  writeFileSync(file, completionScript(shell, buildProgram()));
  return file;
};
const shell = (cmd: string, args: string[]): string => {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
};

/** What bash completes for `words`, the last being the word under the cursor. */
function bash(words: string[]): string[] {
  const file = script('bash');
  const array = words.map((w) => `'${w}'`).join(' ');
  return shell('bash', [
    '-c',
    `source '${file}'; COMP_WORDS=(${array}); COMP_CWORD=${words.length - 1}; _scaffold_complete; printf '%s\\n' "\${COMPREPLY[@]}"`,
  ])
    .split('\n')
    .filter(Boolean);
}

describe('scaffold completion', () => {
  it('bash completes commands, subcommands and each command’s own flags, for both bins', () => {
    expect(bash(['scaffold', 'cr'])).toEqual(['create']);
    expect(bash(['scaffold', 'create', ''])).toEqual(['api', 'webhook']);
    expect(bash(['kubescaffold', 'create', 'api', '--gr'])).toEqual(['--group']);
    expect(bash(['scaffold', 'envtest', 'use', '--inst'])).toEqual(['--installed-only']);
    expect(bash(['scaffold', 'init', '--domain', 'example.com', '--sk'])).toEqual(['--skip-install']);
    expect(shell('bash', ['-c', `source '${script('bash')}'; complete -p kubescaffold scaffold`])).toMatch(
      /-F _scaffold_complete kubescaffold[\s\S]*-F _scaffold_complete scaffold/,
    );
  });

  it.skipIf(!peerAvailable('zsh completion', onPath('zsh') ? undefined : 'zsh is not installed'))(
    'zsh loads the script through bashcompinit and gets the same candidates',
    () => {
      const out = shell('zsh', [
        '-c',
        `autoload -U +X compinit && compinit -u; source '${script('zsh')}'; setopt ksharrays; COMP_WORDS=(scaffold create ''); COMP_CWORD=2; _scaffold_complete; print -l -- "\${COMPREPLY[@]}"`,
      ]);
      expect(out.split('\n').filter(Boolean)).toEqual(['api', 'webhook']);
    },
  );

  it.skipIf(!peerAvailable('fish completion', onPath('fish') ? undefined : 'fish is not installed'))(
    'fish completes commands, subcommands and flags',
    () => {
      const complete = (line: string): string[] =>
        shell('fish', ['-c', `source '${script('fish')}'; complete -C '${line}'`])
          .split('\n')
          .filter(Boolean)
          .map((l) => l.split('\t')[0]!);
      expect(complete('scaffold cr')).toEqual(['create']);
      expect(complete('kubescaffold create ')).toEqual(['api', 'webhook']);
      expect(complete('scaffold create api --gr')).toEqual(['--group']);
      expect(complete('scaffold envtest ')).toEqual(['list', 'start', 'stop', 'use']);
    },
  );

  it('refuses an unknown shell', async () => {
    const errors: string[] = [];
    const program = buildProgram().configureOutput({ writeErr: (s) => errors.push(s) });
    program.commands.find((c) => c.name() === 'completion')!.configureOutput({ writeErr: (s) => errors.push(s) });
    await expect(program.parseAsync(['node', 'scaffold', 'completion', 'tcsh'])).rejects.toThrow();
    expect(errors.join('')).toMatch(/unknown shell "tcsh"; use one of bash, zsh, fish/);
  });
});
