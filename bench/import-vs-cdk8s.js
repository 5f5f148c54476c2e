/**
 * `scaffold import crd` side by side with `cdk8s import` on the CRD corpus of the import round trip
 * (test/support/crd-corpus.json, fetched from the Go module proxy at pinned versions): for each set of CRDs, whether
 * each tool's run succeeds and how long it takes, whether its TypeScript compiles under a scaffolded project's strict
 * settings, how many of the CRDs' validation keys the output keeps, and, for ours, the paths where `scaffold
 * manifests` gives a CRD back otherwise. Prints a Markdown table (docs/guides/external-apis.md records it).
 *
 * cdk8s-cli, cdk8s and constructs are installed once, at the versions below, into
 * ~/.cache/kubescaffold/cdk8s-import/. Build first (`npm run build`).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import ts from 'typescript';
import { parseAllDocuments } from 'yaml';

const repo = join(import.meta.dirname, '..');
const { importCRDs } = await import(join(repo, 'dist/importer/command.js'));
const { planManifests } = await import(join(repo, 'dist/generate/manifests.js'));

const PEER = { 'cdk8s-cli': '2.207.60', cdk8s: '2.70.106', constructs: '10.8.1', typescript: '5.9.3' };
// Keys of a schema that say more than a TypeScript type can: what a types-only output drops.
const VALIDATION_KEYS = [
  'pattern',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'format',
  'x-kubernetes-validations',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-map-type',
  'x-kubernetes-preserve-unknown-fields',
  'oneOf',
  'anyOf',
  'allOf',
  'not',
];

const corpus = JSON.parse(readFileSync(join(repo, 'test/support/crd-corpus.json'), 'utf8'));

/** The folder with the peer installed, installing it on first use. */
function peerDir() {
  const dir = join(
    process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'),
    'kubescaffold',
    'cdk8s-import',
    PEER['cdk8s-cli'],
  );
  if (!existsSync(join(dir, 'node_modules/.bin/cdk8s'))) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'cdk8s-peer', private: true, type: 'module' }));
    execFileSync('npm', ['install', '--no-audit', '--no-fund', ...Object.entries(PEER).map(([n, v]) => `${n}@${v}`)], {
      cwd: dir,
      stdio: 'inherit',
    });
  }
  return dir;
}

function moduleFiles(source) {
  const out = execFileSync('go', ['mod', 'download', '-json', `${source.module}@${source.version}`], {
    env: { ...process.env, GOFLAGS: '-mod=mod', GOWORK: 'off', GOTOOLCHAIN: 'local' },
    encoding: 'utf8',
  });
  const dir = JSON.parse(out).Dir;
  return source.paths.flatMap((p) => {
    const path = join(dir, p);
    if (!statSync(path).isDirectory()) return [path];
    return readdirSync(path)
      .sort()
      .filter((f) => /\.ya?ml$/.test(f) && !source.skip?.includes(f))
      .map((f) => join(path, f));
  });
}

const readCRDs = (files) =>
  files.flatMap((f) =>
    parseAllDocuments(readFileSync(f, 'utf8'))
      .map((d) => d.toJS())
      .filter((d) => d?.kind === 'CustomResourceDefinition'),
  );

/** How many validation keys the CRDs' schemas hold. */
function validationKeys(value) {
  if (Array.isArray(value)) return value.reduce((n, v) => n + validationKeys(v), 0);
  if (value === null || typeof value !== 'object') return 0;
  let n = 0;
  for (const [k, v] of Object.entries(value)) {
    if (VALIDATION_KEYS.includes(k)) n += k === 'x-kubernetes-validations' && Array.isArray(v) ? v.length : 1;
    if (k !== 'enum' && k !== 'default' && k !== 'example') n += validationKeys(v);
  }
  return n;
}

/** The number of paths where two JSON values differ. */
function differing(a, b) {
  if (Array.isArray(a) && Array.isArray(b))
    return Array.from({ length: Math.max(a.length, b.length) }, (_, i) => differing(a[i], b[i])).reduce(
      (x, y) => x + y,
      0,
    );
  const obj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (obj(a) && obj(b))
    return [...new Set([...Object.keys(a), ...Object.keys(b)])].reduce((n, k) => n + differing(a[k], b[k]), 0);
  return Object.is(a, b) ? 0 : 1;
}

const comparable = (crd) => {
  const c = structuredClone(crd);
  for (const a of ['controller-gen.kubebuilder.io/version', 'kubescaffold.io/version'])
    delete c.metadata.annotations?.[a];
  if (c.metadata.annotations && Object.keys(c.metadata.annotations).length === 0) delete c.metadata.annotations;
  delete c.status;
  return c;
};

/** Compiler errors of the .ts files under `dir`, with a scaffolded project's strict settings. */
function typeErrors(dir, paths = {}) {
  const files = [];
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory() && e.name !== 'node_modules') walk(join(d, e.name));
      else if (e.name.endsWith('.ts')) files.push(join(d, e.name));
    }
  };
  walk(dir);
  const program = ts.createProgram(files, {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    noUncheckedIndexedAccess: true,
    noImplicitOverride: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
    paths,
  });
  return ts.getPreEmitDiagnostics(program).filter((d) => d.file === undefined || files.includes(d.file.fileName));
}

/** Ours: import, then manifests, compared with the originals. */
async function ours(files, originals) {
  const root = mkdtempSync(join(process.env.TMPDIR ?? '/tmp', 'ks-vs-cdk8s-'));
  try {
    const start = performance.now();
    let problems = 0;
    try {
      await importCRDs({ root, sources: files, outputDir: 'out', boilerplate: '' });
    } catch (err) {
      return { ok: false, error: String(err.message).split('\n').slice(-1)[0] };
    }
    const seconds = (performance.now() - start) / 1000;
    const { crds } = planManifests({ root, paths: ['./out/...'], generatorVersion: '(bench)' });
    const byName = new Map(crds.map((c) => [c.metadata.name, c]));
    let diffs = 0;
    for (const o of originals)
      diffs += byName.has(o.metadata.name) ? differing(comparable(o), comparable(byName.get(o.metadata.name))) : 1;
    const runtime = join(repo, 'src/runtime/dist/index.d.ts');
    const errors = typeErrors(join(root, 'out'), { '@kubescaffold/runtime': [runtime] }).length;
    const text = readdirSync(join(root, 'out'), { recursive: true })
      .filter((f) => String(f).endsWith('.ts'))
      .map((f) => readFileSync(join(root, 'out', String(f)), 'utf8'))
      .join('\n');
    const ourMarkers = (text.match(/^\s*\/\/ \+kubescaffold:/gm) ?? []).length;
    return { ok: true, seconds, diffs, errors, problems, ourMarkers, lines: text.split('\n').length };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** cdk8s import, one CRD file at a time (it names its output after the group, so each file gets a folder). */
function cdk8s(files, peer) {
  const work = mkdtempSync(join(peer, 'run-'));
  try {
    const start = performance.now();
    const failed = [];
    files.forEach((f, i) => {
      const r = spawnSync(
        join(peer, 'node_modules/.bin/cdk8s'),
        ['import', f, '--language', 'typescript', '--output', `imports/${i}`],
        {
          cwd: work,
          encoding: 'utf8',
        },
      );
      if (r.status !== 0)
        failed.push(`${relative(work, f)}: ${(r.stderr || r.stdout).trim().split('\n').slice(-1)[0]}`);
    });
    const seconds = (performance.now() - start) / 1000;
    const dir = join(work, 'imports');
    if (!existsSync(dir)) return { ok: false, failed };
    const errors = typeErrors(dir);
    const text = readdirSync(dir, { recursive: true })
      .filter((f) => String(f).endsWith('.ts'))
      .map((f) => readFileSync(join(dir, String(f)), 'utf8'))
      .join('\n');
    return {
      ok: failed.length === 0,
      failed,
      seconds,
      errors: errors.length,
      firstError: errors[0] ? ts.flattenDiagnosticMessageText(errors[0].messageText, ' ') : undefined,
      lines: text.split('\n').length,
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const peer = peerDir();
const rows = [];
for (const source of corpus) {
  const files = moduleFiles(source);
  const originals = readCRDs(files);
  const validations = originals.reduce((n, c) => n + validationKeys(c.spec.versions), 0);
  const a = await ours(files, originals);
  const b = cdk8s(files, peer);
  rows.push({ source, crds: originals.length, validations, a, b });
  console.error(`${source.name}: ours ${JSON.stringify(a)}; cdk8s ${JSON.stringify(b)}`);
}

const cell = (r) => (r.ok ? `${r.seconds.toFixed(1)} s` : `fails: ${r.error ?? r.failed?.join('; ')}`);
console.log(
  '| CRDs | make | validation keys | ours: run, differing paths, compile errors, markers of ours | cdk8s: run, compile errors, validation keys kept |',
);
console.log('| --- | --- | ---: | --- | --- |');
for (const { source, crds, validations, a, b } of rows)
  console.log(
    `| ${source.name} ${source.version} (${crds}) | ${source.make} | ${validations} | ${cell(a)}, ${a.diffs ?? '-'}, ${a.errors ?? '-'}, ${a.ourMarkers ?? '-'} | ${cell(b)}, ${b.errors ?? '-'}${b.firstError ? ` (${b.firstError.slice(0, 80)})` : ''}, 0 |`,
  );
