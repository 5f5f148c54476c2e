#!/usr/bin/env node
// Where the time of one `scaffold manifests` run goes. The CLI's path (bin/scaffold.js, commander and the commands,
// the PROJECT check, the fingerprint, the TypeScript compiler, the generator's modules, parsing and markers, schemas,
// structural checks, YAML, writing) is followed step by step in a fresh process, with the module compile cache
// bin/scaffold.js enables, on a generated API of KINDS Kinds (bench/manifests-project.js); min and median of RUNS
// processes per phase, next to the wall time of the real `scaffold manifests` on the same project. Run it with the
// node binary to measure. KUBESCAFFOLD_DIST=<dir> measures another build (e.g. an older commit's dist/).
// Usage: node bench/manifests-phases.js    (env: KINDS=10 RUNS=9 KUBESCAFFOLD_DIST=<dir>)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import module from 'node:module';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const dist = process.env.KUBESCAFFOLD_DIST
  ? pathToFileURL(`${process.env.KUBESCAFFOLD_DIST.replace(/\/$/, '')}/`).href
  : new URL('../dist/', import.meta.url).href;

if (process.env.BENCH_PHASES_ROOT) await child(process.env.BENCH_PHASES_ROOT);
else await parent();

async function child(root) {
  const marks = [['Node start', performance.now()]];
  const mark = (name) => marks.push([name, performance.now()]);
  // as bin/scaffold.js does
  module.enableCompileCache?.(
    join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'kubescaffold', 'compile-cache'),
  );
  const load = (path) => import(new URL(path, dist).href);
  const has = (path) => existsSync(fileURLToPath(new URL(path, dist)));

  (await load('cli/index.js')).buildProgram();
  mark('CLI: commander, commands');
  await load('generate/command.js');
  if (has('generate/project.js')) await (await load('generate/project.js')).requireProject(root);
  else (await load('scaffold/context.js')).loadProject(root);
  mark('PROJECT check');
  (await load('generate/fingerprint.js')).inputKey(root, ['manifests', {}]);
  mark('fingerprint of the sources');
  await load('markers/typescript.js');
  mark('TypeScript compiler');
  const [
    { SourceProgram, expandPaths },
    crd,
    { SchemaGenerator },
    structural,
    { DiagnosticBag },
    { generateRoles },
    { generateWebhookConfigurations },
    { toYamlFile },
    { writeChanged },
  ] = await Promise.all(
    [
      'markers/program.js',
      'crd/crd.js',
      'crd/schema.js',
      'crd/structural.js',
      'diagnostics.js',
      'rbac/index.js',
      'webhookgen/index.js',
      'yaml/index.js',
      'generate/write.js',
    ].map(load),
  );
  await load('generate/manifests.js');
  mark('generator modules');
  // planManifests (src/generate/manifests.ts), a step at a time
  const program = new SourceProgram(root);
  const diags = new DiagnosticBag();
  const packages = expandPaths(root, ['./...']).map((dir) => program.loadPackage(dir));
  mark('parse, markers');
  const gvs = packages.map(crd.groupVersionOf).filter((gv) => gv !== undefined);
  const kinds = gvs.flatMap((gv) => crd.findKinds(program, gv, diags));
  const gen = new SchemaGenerator(program, diags, { allowDangerousTypes: false });
  const crds = crd.buildCRDs(kinds, gen, diags, { generatorVersion: 'bench' });
  mark('schemas');
  const checked = structural.CheckedSchemas ? new structural.CheckedSchemas() : undefined;
  for (const c of crds) structural.checkStructural(c, kinds, diags, checked);
  mark('structural checks');
  const markers = packages.flatMap((p) => p.markers.list);
  const roles = generateRoles(markers, 'manager-role');
  generateWebhookConfigurations(markers, diags);
  if (!diags.empty) throw new Error(diags.items.map((d) => d.message).join('\n'));
  const files = crds.map((c) => ({
    path: join(root, 'config/crd/bases', `${c.spec.group}_${c.spec.names.plural}.yaml`),
    content: toYamlFile([c], '', { replaySharedObjects: true }),
  }));
  files.push({ path: join(root, 'config/rbac/role.yaml'), content: toYamlFile(roles) });
  mark('YAML');
  writeChanged(files);
  mark('compare and write files');
  console.log(JSON.stringify(marks.map(([name, at], i) => [name, i === 0 ? at : at - marks[i - 1][1]])));
}

async function parent() {
  const kinds = Number(process.env.KINDS ?? 10);
  const runs = Number(process.env.RUNS ?? 9);
  const { makeProjects } = await import('./manifests-project.js');
  const base = mkdtempSync(join(tmpdir(), 'bench-phases-'));
  try {
    const { ts } = makeProjects(kinds, base);
    // the launcher beside the dist/ measured
    const scaffold = fileURLToPath(new URL('../bin/scaffold.js', dist));
    const real = () => {
      const start = process.hrtime.bigint();
      const r = spawnSync(process.execPath, [scaffold, 'manifests'], { cwd: ts, encoding: 'utf8' });
      if (r.status !== 0) throw new Error(r.stderr);
      return Number(process.hrtime.bigint() - start) / 1e6;
    };
    const phased = () => {
      const start = process.hrtime.bigint();
      const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url)], {
        cwd: ts,
        encoding: 'utf8',
        env: { ...process.env, BENCH_PHASES_ROOT: ts },
      });
      if (r.status !== 0) throw new Error(r.stderr);
      return { phases: JSON.parse(r.stdout), wall: Number(process.hrtime.bigint() - start) / 1e6 };
    };
    real(); // writes the files and fills the compile cache
    phased();
    const samples = [];
    const walls = [];
    for (let i = 0; i < runs; i++) {
      samples.push(phased());
      walls.push(real());
    }
    const stats = (xs) => {
      const s = [...xs].sort((a, b) => a - b);
      return `${s[0].toFixed(1).padStart(7)} ${s[Math.floor(s.length / 2)].toFixed(1).padStart(7)}`;
    };
    console.log(
      `scaffold manifests, ${kinds} Kinds, node ${process.version}, ${runs} runs (ms: min, median); dist ${fileURLToPath(dist)}`,
    );
    for (const [i, [name]] of samples[0].phases.entries())
      console.log(`  ${name.padEnd(28)} ${stats(samples.map((s) => s.phases[i][1]))}`);
    console.log(
      `  ${'sum of the phases'.padEnd(28)} ${stats(samples.map((s) => s.phases.reduce((a, [, ms]) => a + ms, 0)))}`,
    );
    console.log(`  ${'this process, wall'.padEnd(28)} ${stats(samples.map((s) => s.wall))}`);
    console.log(`  ${'scaffold manifests, wall'.padEnd(28)} ${stats(walls)}`);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}
