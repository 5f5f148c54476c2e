/**
 * The CLI reference (docs/reference/cli.md), written from the commander definitions themselves so that it cannot
 * drift from `--help`: every command with its usage, arguments, options (with defaults) and examples.
 * `npm run docs:reference` writes it; test/docs/cli-reference.test.ts fails when the file and the commands disagree.
 */
import type { Command, Option } from 'commander';
import { examplesFor } from './examples.js';
import { commandTree } from './tree.js';

// Markdown passes `<word>` through as an HTML tag: GitHub drops it and VitePress fails on it, so prose escapes it.
const prose = (text: string): string => text.replace(/</g, '&lt;').replace(/>/g, '&gt;');
const cell = (text: string): string => prose(text.replace(/\|/g, '\\|')).replace(/\n/g, ' ');

function optionDefault(o: Option): string {
  if (o.defaultValue === undefined || o.defaultValue === '' || o.negate) return '';
  if (Array.isArray(o.defaultValue) && o.defaultValue.length === 0) return '';
  return `\`${typeof o.defaultValue === 'string' ? o.defaultValue : JSON.stringify(o.defaultValue)}\``;
}

function section(path: string, cmd: Command): string[] {
  const name = path === '' ? 'scaffold' : `scaffold ${path}`;
  const lines = [`## ${name}`, '', prose(cmd.description()), '', '```', `${name} ${cmd.usage()}`.trim(), '```', ''];
  const args = cmd.registeredArguments;
  if (args.length > 0) {
    lines.push('| argument | description |', '|---|---|');
    for (const a of args)
      lines.push(
        `| \`${a.required ? `<${a.name()}>` : `[${a.name()}${a.variadic ? '...' : ''}]`}\` | ${cell(a.description)} |`,
      );
    lines.push('');
  }
  const options = cmd.options.filter((o) => !o.hidden);
  if (options.length > 0) {
    lines.push('| option | description | default |', '|---|---|---|');
    for (const o of options) lines.push(`| \`${o.flags}\` | ${cell(o.description)} | ${optionDefault(o)} |`);
    lines.push('');
  }
  const subcommands = cmd.commands.filter((c) => !(c as Command & { _hidden?: boolean })._hidden);
  if (subcommands.length > 0) {
    lines.push(
      'Commands: ' +
        subcommands
          .map((c) => `[\`${c.name()}\`](#${anchor(path === '' ? c.name() : `${path} ${c.name()}`)})`)
          .join(', '),
      '',
    );
  }
  const examples = examplesFor(path);
  if (examples.length > 0) lines.push('Examples:', '', '```sh', ...examples, '```', '');
  return lines;
}

/** GitHub's anchor for the heading `scaffold <path>`. */
function anchor(path: string): string {
  return `scaffold-${path}`
    .toLowerCase()
    .replace(/[^a-z0-9 -]/g, '')
    .replace(/ /g, '-');
}

/** The whole reference as Markdown. */
export function cliReference(program: Command): string {
  const tree = commandTree(program).filter(([path]) => path !== 'help');
  const lines = [
    '# CLI reference',
    '',
    '<!-- Generated from the commander definitions by `npm run docs:reference` (src/cli/reference.ts). Do not edit. -->',
    '',
    'Inside a project, where kubescaffold is a dependency, run the CLI as `npx scaffold`; outside one (to start a',
    'project) as `npx kubescaffold`. Both names run the same program. `scaffold <command> --help` prints the same text.',
    '',
    'Commands write only inside the project (never through a symbolic link that leaves it), read types files only from',
    'it, and refuse text that is not UTF-8 and YAML past their size, nesting and alias bounds: see',
    '[Projects you did not write](../guides/untrusted-projects.md).',
    '',
  ];
  for (const [path, cmd] of tree) lines.push(...section(path, cmd));
  return `${lines.join('\n').trimEnd()}\n`;
}
