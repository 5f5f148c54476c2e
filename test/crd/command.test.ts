import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runGenerate, runManifests } from '../../src/generate/command.js';
import { watchManifests } from '../../src/generate/watch.js';
import { DiagnosticsError } from '../../src/diagnostics.js';

const fixture = join(import.meta.dirname, '../fixtures/markers/scaffold');
let root: string;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'ks-manifests-'));
  for (const d of ['api', 'internal', 'hack', 'PROJECT']) cpSync(join(fixture, d), join(root, d), { recursive: true });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const crdPath = (): string => join(root, 'config/crd/bases/crew.example.com_captains.yaml');
const typesPath = (): string => join(root, 'api/v1/captain_types.ts');

describe('scaffold manifests / generate', () => {
  it('writes the CRDs and role, then rewrites nothing when nothing changed', async () => {
    const first = await runManifests({ root, generatorVersion: 't' });
    expect(first.map((p) => p.slice(root.length + 1)).sort()).toEqual([
      'config/crd/bases/crew.example.com_admirals.yaml',
      'config/crd/bases/crew.example.com_captains.yaml',
      'config/rbac/role.yaml',
    ]);
    expect(await runManifests({ root, generatorVersion: 't' })).toEqual([]);
  });

  it('writes nothing at all when any source has a problem', async () => {
    await runManifests({ root, generatorVersion: 't' });
    const before = readFileSync(crdPath(), 'utf8');
    writeFileSync(
      typesPath(),
      readFileSync(typesPath(), 'utf8').replace(
        'foo?: string;',
        'foo?: string;\n  // +kubebuilder:validation:MaxLenght=3\n  bar?: string;',
      ),
    );
    rmSync(join(root, 'config/rbac/role.yaml'));
    await expect(runManifests({ root, generatorVersion: 't' })).rejects.toThrow(DiagnosticsError);
    await expect(runManifests({ root, generatorVersion: 't' })).rejects.toThrow(
      /api\/v1\/captain_types.ts:\d+:6: unknown marker \+kubebuilder:validation:MaxLenght; did you mean \+kubebuilder:validation:MaxLength\?/,
    );
    expect(readFileSync(crdPath(), 'utf8')).toBe(before);
    expect(existsSync(join(root, 'config/rbac/role.yaml'))).toBe(false);
  });

  it('generate writes the resource descriptors from the markers', async () => {
    writeFileSync(
      typesPath(),
      readFileSync(typesPath(), 'utf8').replace(
        '// +kubebuilder:subresource:status',
        '// +kubebuilder:subresource:status\n// +kubebuilder:resource:path=skippers,scope=Cluster',
      ),
    );
    await runGenerate({ root });
    const out = readFileSync(join(root, 'api/v1/zz_generated.resources.ts'), 'utf8');
    expect(out).toContain(
      "export const CaptainResource = defineResource<Captain>({\n  group: 'crew.example.com',\n  version: 'v1',\n  kind: 'Captain',\n  plural: 'skippers',\n  namespaced: false,\n});",
    );
    expect(out).toContain("import type { Admiral } from './admiral_types.js';");
  });
});

describe('skipping unchanged projects', () => {
  it('skips a run whose sources, options and outputs are unchanged, and runs again after any of them changes', async () => {
    mkdirSync(join(root, 'node_modules'));
    expect((await runManifests({ root, generatorVersion: 't' })).length).toBe(3);
    expect(existsSync(join(root, 'node_modules/.cache/kubescaffold/manifests.json'))).toBe(true);
    rmSync(crdPath());
    expect(await runManifests({ root, generatorVersion: 't' })).toEqual([crdPath()]);
    writeFileSync(crdPath(), 'edited by hand\n');
    expect(await runManifests({ root, generatorVersion: 't' })).toEqual([crdPath()]);
    expect(await runManifests({ root, generatorVersion: 't', maxDescLen: 10 })).toHaveLength(2);
    writeFileSync(typesPath(), readFileSync(typesPath(), 'utf8').replace('foo?: string;', 'foo?: boolean;'));
    expect(await runManifests({ root, generatorVersion: 't', maxDescLen: 10 })).toEqual([crdPath()]);
    // an unchanged project: nothing read beyond the sources, nothing written
    expect(await runManifests({ root, generatorVersion: 't', maxDescLen: 10 })).toEqual([]);
  });
});

/** Starts `manifests --watch` on the project; `next()` resolves after the run that follows the call. */
function startWatching(): {
  runs: Array<{ written: string[]; error?: Error }>;
  next: () => Promise<void>;
  firstRun: Promise<void>;
  watchesInPlace: Promise<void>;
  stop: () => Promise<void>;
} {
  const runs: Array<{ written: string[]; error?: Error }> = [];
  let notify: (() => void) | undefined;
  const next = (): Promise<void> => new Promise((r) => (notify = r));
  const controller = new AbortController();
  let ready!: () => void;
  const watchesInPlace = new Promise<void>((r) => (ready = r));
  const firstRun = next();
  const watching = watchManifests({
    root,
    generatorVersion: 't',
    signal: controller.signal,
    debounceMs: 10,
    onReady: ready,
    onRun: (r) => {
      runs.push(r);
      notify?.();
    },
  });
  return { runs, next, firstRun, watchesInPlace, stop: () => (controller.abort(), watching) };
}

describe('scaffold manifests --watch', () => {
  it('regenerates after a change, reports errors without writing, and recovers', async () => {
    const { runs, next, firstRun, watchesInPlace, stop } = startWatching();
    await firstRun;
    expect(runs[0]!.written.length).toBe(3);
    await watchesInPlace;
    let first: Promise<void>;

    first = next();
    writeFileSync(
      typesPath(),
      readFileSync(typesPath(), 'utf8').replace(
        'foo?: string;',
        'foo?: string;\n  /** size of the crew. */\n  size?: string;',
      ),
    );
    await first;
    expect(runs.at(-1)!.written.map((p) => p.slice(root.length + 1))).toEqual([
      'config/crd/bases/crew.example.com_captains.yaml',
    ]);
    expect(readFileSync(crdPath(), 'utf8')).toContain('description: size of the crew.');

    first = next();
    const good = readFileSync(typesPath(), 'utf8');
    writeFileSync(typesPath(), good.replace('size?: string;', 'size?: number;'));
    await first;
    expect(runs.at(-1)!.error?.message).toMatch(/number is a float/);
    expect(readFileSync(crdPath(), 'utf8')).toContain('description: size of the crew.');

    first = next();
    writeFileSync(typesPath(), good.replace('size?: string;', 'size?: boolean;'));
    await first;
    expect(runs.at(-1)!.error).toBeUndefined();
    expect(readFileSync(crdPath(), 'utf8')).toMatch(/description: size of the crew.\n\s+type: boolean/);

    // a package marker in another file changes every Kind of the folder
    first = next();
    const gv = join(root, 'api/v1/groupversion_info.ts');
    writeFileSync(
      gv,
      readFileSync(gv, 'utf8').replace('// +groupName=crew.example.com', '// +groupName=fleet.example.com'),
    );
    await first;
    expect(
      runs
        .at(-1)!
        .written.map((p) => p.slice(root.length + 1))
        .sort(),
    ).toEqual(['config/crd/bases/fleet.example.com_admirals.yaml', 'config/crd/bases/fleet.example.com_captains.yaml']);
    await stop();
  });

  it('keeps seeing a file that an editor saves by rename, as vim and sed -i do', async () => {
    const { runs, next, firstRun, watchesInPlace, stop } = startWatching();
    await Promise.all([firstRun, watchesInPlace]);
    let ran: Promise<void>;
    // Each save writes a temporary file and renames it over the original, replacing its inode.
    const saveByRename = (edit: (text: string) => string): void => {
      const tmp = `${typesPath()}.swp`;
      writeFileSync(tmp, edit(readFileSync(typesPath(), 'utf8')));
      renameSync(tmp, typesPath());
    };
    for (const type of ['boolean', 'string', 'boolean']) {
      ran = next();
      saveByRename((t) => t.replace(/foo\?: \w+;/, `foo?: ${type};`));
      await ran;
      expect(runs.at(-1)!.error).toBeUndefined();
      expect(/ foo:\n(?:.*\n)*?\s+type: (\w+)/.exec(readFileSync(crdPath(), 'utf8'))?.[1]).toBe(type);
    }
    await stop();
  });
});

describe('incremental planning', () => {
  it('rebuilds a CRD when a type it uses from another file changes, and reuses it otherwise', async () => {
    const { planManifests } = await import('../../src/generate/manifests.js');
    const { SourceProgram } = await import('../../src/markers/program.js');
    const { CRDCache } = await import('../../src/crd/crd.js');
    const dir = mkdtempSync(join(tmpdir(), 'ks-incr-'));
    try {
      cpSync(join(import.meta.dirname, '../fixtures/markers/cronjob/api'), join(dir, 'api'), { recursive: true });
      const program = new SourceProgram(dir);
      const cache = new CRDCache(program);
      const first = planManifests({ root: dir, generatorVersion: 't' }, program, cache).crds[0]!;
      expect(planManifests({ root: dir, generatorVersion: 't' }, program, cache).crds[0]).toBe(first);
      const common = join(dir, 'api/v1/common.ts');
      writeFileSync(common, readFileSync(common, 'utf8').replace('Minimum=1', 'Minimum=2'));
      program.invalidate(common);
      const second = planManifests({ root: dir, generatorVersion: 't' }, program, cache);
      expect(second.crds[0]).not.toBe(first);
      expect(second.files[0]!.content).toContain('minimum: 2');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
