// enableSourceMaps on real bundles: a TypeScript program bundled with esbuild (as a scaffolded project's hack/bundle.js
// does), run by Node in a child process, prints its stack trace.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';

const sourceMaps = fileURLToPath(new URL('../../../src/runtime/log/source-maps.ts', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'ks-source-maps-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Line 5 throws, from column 9: the place the trace must name.
const program = (enable: boolean): string =>
  [
    `import { enableSourceMaps } from ${JSON.stringify(sourceMaps)};`,
    enable ? 'const restore = enableSourceMaps();' : 'const restore = () => undefined;',
    'function reconcileCaptain(name: string): never {',
    '  const why: string = `captain ${name} is lost`;',
    '  throw new Error(why);',
    '}',
    'try { reconcileCaptain("sample"); } catch (err) { console.log((err as Error).stack); }',
    'restore();',
    'try { reconcileCaptain("again"); } catch (err) { console.log((err as Error).stack); }',
  ].join('\n');

/** Bundles `source` (as main.ts) to main.js with a linked source map, runs it with `nodeFlags`, and returns its stdout. */
async function bundleAndRun(
  name: string,
  source: string,
  opts: { sourcemap: boolean; nodeFlags?: string[] },
): Promise<string> {
  const entry = join(dir, `${name}.ts`);
  writeFileSync(entry, source);
  const outfile = join(dir, `${name}.js`);
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    sourcemap: opts.sourcemap ? 'linked' : false,
    sourcesContent: false,
    logLevel: 'error',
  });
  const run = spawnSync(process.execPath, [...(opts.nodeFlags ?? []), outfile], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`${name} failed:\n${run.stdout}${run.stderr}`);
  return run.stdout;
}

const traces = (stdout: string): string[] => stdout.split(/(?=^Error: )/m);

describe('enableSourceMaps', () => {
  it('names the TypeScript file, line and column of each frame in a bundle, and keeps the message and function names', async () => {
    const [trace] = traces(await bundleAndRun('mapped', program(true), { sourcemap: true }));
    expect(trace).toMatch(/^Error: captain sample is lost\n/);
    expect(trace).toMatch(new RegExp(`at reconcileCaptain \\(${join(dir, 'mapped.ts')}:5:9\\)`));
    expect(trace).not.toContain('mapped.js');
  });

  it('leaves frames as V8 wrote them once restored, and in files without a source map', async () => {
    const [, restored] = traces(await bundleAndRun('restored', program(true), { sourcemap: true }));
    expect(restored).toMatch(/^Error: captain again is lost\n/);
    expect(restored).toContain(join(dir, 'restored.js'));
    expect(restored).not.toContain('restored.ts');
    const [unmapped] = traces(await bundleAndRun('unmapped', program(true), { sourcemap: false }));
    expect(unmapped).toContain(join(dir, 'unmapped.js'));
  });

  it("steps aside when Node's own source map support is on", async () => {
    // Node maps the frame itself; the restore function enableSourceMaps returned has nothing to restore.
    const [first, second] = traces(
      await bundleAndRun('native', program(true), { sourcemap: true, nodeFlags: ['--enable-source-maps'] }),
    );
    expect(first).toContain(`${join(dir, 'native.ts')}:5:9`);
    expect(second).toContain(`${join(dir, 'native.ts')}:5:9`);
  });
});
