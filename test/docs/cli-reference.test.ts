import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/index.js';
import { cliReference } from '../../src/cli/reference.js';
import { commandTree } from '../../src/cli/tree.js';

const file = new URL('../../docs/reference/cli.md', import.meta.url);

describe('docs/reference/cli.md', () => {
  it('is what the commander definitions generate (run `npm run docs:reference` after changing a command)', () => {
    expect(readFileSync(file, 'utf8')).toBe(cliReference(buildProgram()));
  });

  it('has a section for every command and every option of it', () => {
    const text = readFileSync(file, 'utf8');
    for (const [path, cmd] of commandTree(buildProgram())) {
      if (path === 'help') continue;
      expect(text, path).toContain(`\n## scaffold${path === '' ? '' : ` ${path}`}\n`);
      for (const o of cmd.options) expect(text, `${path} ${o.flags}`).toContain(`| \`${o.flags}\` |`);
    }
  });
});
