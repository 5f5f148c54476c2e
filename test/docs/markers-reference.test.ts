import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { definitions } from '../../src/markers/registry.js';
import { markerReference } from '../../src/markers/reference.js';

const file = new URL('../../docs/reference/markers.md', import.meta.url);
const scaffoldBin = fileURLToPath(new URL('../../bin/scaffold.js', import.meta.url));

describe('docs/reference/markers.md', () => {
  it('is what the marker registry generates (run `npm run docs:reference` after changing a marker)', () => {
    expect(readFileSync(file, 'utf8')).toBe(markerReference());
  });

  it('lists every marker scaffold manifests reads', () => {
    const text = readFileSync(file, 'utf8');
    for (const def of definitions) expect(text, def.name).toContain(`\`// +${def.name}`);
  });

  it('is what `scaffold manifests --markers` prints, anywhere (controller-gen prints its markers with -w)', () => {
    expect(
      execFileSync(process.execPath, [scaffoldBin, 'manifests', '--markers'], { cwd: tmpdir(), encoding: 'utf8' }),
    ).toBe(readFileSync(file, 'utf8'));
  });
});
