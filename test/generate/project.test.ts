/**
 * The PROJECT check of `scaffold manifests` and `scaffold generate` without the yaml library: whatever it accepts,
 * parseProject (the yaml library) must accept too. Checked on scaffold's own PROJECT files and on thousands of
 * mutations of them (lines dropped, repeated, re-indented, values swapped for YAML's tricky scalars).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isPlainValidProject, KUBESCAFFOLD_LAYOUT } from '../../src/generate/project.js';
import { LAYOUT, parseProject } from '../../src/project/project.js';

const snapshots = ['single-group', 'multigroup-namespaced', 'webhooks'].map((name) =>
  readFileSync(fileURLToPath(new URL(`../scaffold/__snapshots__/${name}/PROJECT.snap`, import.meta.url)), 'utf8'),
);
const fixture = readFileSync(fileURLToPath(new URL('../fixtures/markers/scaffold/PROJECT', import.meta.url)), 'utf8');

describe('the PROJECT check without the yaml library', () => {
  it('knows the layout project.ts defines', () => {
    expect(KUBESCAFFOLD_LAYOUT).toBe(LAYOUT);
  });

  it('accepts the PROJECT files scaffold writes', () => {
    for (const text of [...snapshots, fixture]) expect(isPlainValidProject(text)).toBe(true);
  });

  it('leaves every other file to the full parse', () => {
    const rejected = [
      '',
      'version: "3"\n',
      'domain: example.com\nlayout:\n- go.kubebuilder.io/v4\nprojectName: goproject\nrepo: example.com/goproject\nversion: "3"\n',
      'version: "3\nlayout: [\n',
      fixture.replace('version: "3"', 'version: "2"'),
      fixture.replace('projectName: proj1', 'projectName: 123'),
      fixture.replace('projectName: proj1', 'projectName: true'),
      fixture.replace('kind: Captain', "kind: ''"),
      fixture.replace('kind: Captain', 'kind: &k Captain'),
      fixture.replace('repo: proj1', 'repo: proj1\nrepo: proj2'),
      fixture.replace('license: apache2', 'license: apache2 # comment'),
      fixture.replace('license: apache2', 'license: |\n  apache2'),
      fixture.replace('license: apache2', 'license: apache2\n  continued'),
      fixture.replace(/\n/g, '\r\n'),
      `---\n${fixture}`,
    ];
    for (const text of rejected) expect(isPlainValidProject(text), text).toBe(false);
  });

  it('accepts only what parseProject accepts, on mutations of real files', () => {
    const tricky = [
      '',
      '~',
      'null',
      'True',
      'yes',
      '3',
      '3.0',
      '0x3',
      '.inf',
      '"3"',
      "'3'",
      '"a\\"b"',
      "'it''s'",
      'a: b',
      'a:',
      '- a',
      '[a]',
      '{a: 1}',
      '*x',
      '&x y',
      '!!str 3',
      '|',
      '>',
      '#',
      'a #b',
      'a#b',
      '@x',
      '`x',
      '%x',
      '?',
      ': x',
      'http://x',
      KUBESCAFFOLD_LAYOUT,
    ];
    let seed = 1;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    let accepted = 0;
    for (let i = 0; i < 4000; i++) {
      const base = [...snapshots, fixture][random(4)]!;
      const lines = base.split('\n');
      for (let k = 1 + random(3); k > 0; k--) {
        const at = random(lines.length);
        const line = lines[at]!;
        switch (random(6)) {
          case 0:
            lines.splice(at, 1);
            break;
          case 1:
            lines.splice(at, 0, line);
            break;
          case 2:
            lines[at] = ` ${line}`;
            break;
          case 3:
            lines[at] = line.replace(/^ {2}/, '');
            break;
          case 4:
            lines[at] = line.replace(/: .*$/, `: ${tricky[random(tricky.length)]}`);
            break;
          default:
            lines[at] = line.replace(/^( *)- /, '$1');
        }
      }
      const text = lines.join('\n');
      if (!isPlainValidProject(text)) continue;
      accepted++;
      expect(typeof parseProject(text), text).toBe('object');
    }
    expect(accepted).toBeGreaterThan(500);
  });
});
