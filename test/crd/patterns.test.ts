import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { patternProblem } from '../../src/markers/defs/go-regexp.js';
import { runManifests } from '../../src/generate/command.js';

// What Go's regexp.Compile (Go 1.26) says of each pattern: controller-gen and the API server check patterns with it.
// Recorded by compiling each line with a ten-line Go program; `undefined` means Go accepts it.
const GO_VERDICTS: Array<[string, string | undefined]> = [
  // controller-tools' own testdata (pkg/crd/testdata, patternObject): RE2, but not an ECMAScript 'u' pattern.
  [String.raw`^$|^((https):\/\/?)[^\s()<>]+(?:\([\w\d]+\)|([^[:punct:]\s]|\/?))$`, undefined],
  [String.raw`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`, undefined],
  [String.raw`(?i)^abc$`, undefined],
  [String.raw`\Aabc\z`, undefined],
  [String.raw`[[:alpha:]]+`, undefined],
  [String.raw`[^[:punct:]]`, undefined],
  [String.raw`(?<name>x)`, undefined],
  [String.raw`(?P<name>x)`, undefined],
  [String.raw`\pL+`, undefined],
  [String.raw`\p{Greek}`, undefined],
  [String.raw`\Q*\E`, undefined],
  [String.raw`a(b`, 'missing closing ): `a(b`'],
  [String.raw`a{2,1}`, 'invalid repeat count: `{2,1}`'],
  [String.raw`\d+(?=x)`, 'invalid or unsupported Perl syntax: `(?=`'],
  [String.raw`(?<=x)y`, 'invalid named capture: `(?<=x)y`'],
  [String.raw`x**`, 'invalid nested repetition operator: `**`'],
  [String.raw`\1`, 'invalid escape sequence: `\\1`'],
  [String.raw`[z-a]`, 'invalid character class range: `z-a`'],
  [String.raw`a{1001}`, 'invalid repeat count: `{1001}`'],
  [String.raw`\8`, 'invalid escape sequence: `\\8`'],
];

describe('+kubebuilder:validation:Pattern', () => {
  it.each(GO_VERDICTS)('judges %s as Go regexp does', (pattern, verdict) => {
    expect(patternProblem(pattern)).toBe(verdict);
  });

  it("keeps an RE2 pattern that ECMAScript refuses, and refuses a bad one with RE2's error at its line", async () => {
    const root = mkdtempSync(join(tmpdir(), 'ks-patterns-'));
    try {
      for (const d of ['api', 'internal', 'hack', 'PROJECT'])
        cpSync(join(import.meta.dirname, '../fixtures/markers/scaffold', d), join(root, d), { recursive: true });
      const types = join(root, 'api/v1/captain_types.ts');
      const original = readFileSync(types, 'utf8');
      const withPattern = (p: string): string =>
        original.replace('  foo?: string;', () => `  // +kubebuilder:validation:Pattern=\`${p}\`\n  foo?: string;`);
      const good = GO_VERDICTS[0]![0];
      writeFileSync(types, withPattern(good));
      await runManifests({ root, generatorVersion: 't' });
      expect(readFileSync(join(root, 'config/crd/bases/crew.example.com_captains.yaml'), 'utf8')).toContain(
        `pattern: ${good}`,
      );
      writeFileSync(types, withPattern('a(b'));
      await expect(runManifests({ root, generatorVersion: 't' })).rejects.toThrow(
        /api\/v1\/captain_types.ts:\d+:\d+: .*invalid regular expression "a\(b": missing closing \): `a\(b`; patterns use Go's RE2 syntax/,
      );
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
