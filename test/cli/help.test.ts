import { describe, expect, it } from 'vitest';
import { commandsWithExamples } from '../../src/cli/examples.js';
import { buildProgram } from '../../src/cli/index.js';
import { commandTree } from '../../src/cli/tree.js';

const program = buildProgram();
const all = new Map(commandTree(program));

describe('the CLI help', () => {
  it('shows examples for every command', () => {
    expect([...all.keys()].filter((path) => !commandsWithExamples.includes(path))).toEqual([]);
    for (const [path, cmd] of all) {
      let help = '';
      cmd.configureOutput({ writeOut: (s) => (help += s) });
      cmd.outputHelp();
      expect(help, path).toMatch(/\nExamples:\n( {2}\$ .*\n)* {2}\$ npx (kube)?scaffold /);
    }
  });

  it('has examples that name existing commands and only the flags those commands take', () => {
    for (const [path, cmd] of all) {
      let help = '';
      cmd.configureOutput({ writeOut: (s) => (help += s) });
      cmd.outputHelp();
      for (const line of help
        .slice(help.indexOf('Examples:'))
        .split('\n')
        .filter((l) => l.startsWith('  $ npx '))) {
        // The first npx command on the line: `npx scaffold <command words> <args and flags>`.
        const words = line.slice(4).split(' && ')[0]!.split(' ').slice(2);
        let target = program;
        let at = 0;
        while (at < words.length) {
          const sub = target.commands.find((c) => c.name() === words[at]);
          if (!sub) break;
          target = sub;
          at++;
        }
        const own = new Set(target.options.flatMap((o) => [o.long, o.short]).filter(Boolean));
        const endOfFlags = words.indexOf('--');
        const flags = (endOfFlags < 0 ? words : words.slice(0, endOfFlags))
          .filter((w) => /^--?[a-z]/.test(w))
          .map((w) => w.split('=')[0]!);
        expect(
          flags.filter((f) => !own.has(f)),
          `${path}: ${line}`,
        ).toEqual([]);
      }
    }
  });

  it('prints the version and what it runs on', async () => {
    const out: string[] = [];
    const log = console.log;
    console.log = (s: string) => void out.push(s);
    try {
      await buildProgram().parseAsync(['node', 'scaffold', 'version']);
    } finally {
      console.log = log;
    }
    expect(out.join('\n')).toMatch(
      /^kubescaffold \d+\.\d+\.\d+\nnode v\d+\.\d+\.\d+ \(\w+\/\w+\)\nenvtest default Kubernetes \d+\.\d+\.\d+$/,
    );
  });
});
