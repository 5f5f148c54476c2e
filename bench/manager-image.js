#!/usr/bin/env node
// Size of a scaffolded manager's image, final stage only (what is pulled and scanned on top of the base image), for
// the two layouts, built as a user's Dockerfile builds them:
// - bundled (the Dockerfile scaffolded today): the build stage installs with `npm ci`, then `npm run build && npm run
//   bundle` (hack/bundle.js, esbuild); the final stage holds package.json and the contents of bundle/;
// - unbundled (the Dockerfile before the bundle): `npm run build && npm prune --omit=dev`; the final stage holds
//   package.json, dist/ and node_modules.
// A project is scaffolded in a fresh temp directory with the built CLI (`bin/scaffold.js init --domain example.com
// --skip-install`, which packs the CLI, runtime and envtest packages into the project's vendor/ as tarballs, then
// `create api --group crew --version v1 --kind Captain`), and `npm install` writes its package-lock.json. The build
// stage then runs in a second directory holding the build context: the project's files the .dockerignore lets
// through, placed by the build stage's COPY instructions; its RUN instructions are run there in order (read from the
// project's Dockerfile, so this follows the template). The final stage's COPY --from=builder sources are measured:
// bytes (apparent sizes, as the layer's tar holds them), files, and for node_modules the number of packages.
// All commands run with the Node major of the Dockerfile's builder image (node:22) first on PATH: IMAGE_NODE=<path
// to node>, else that major from the cache of scripts/lib/node-binary.js (downloaded from the npm registry on first
// use). npm install and npm ci reach the package registry (or npm's cache). KEEP=1 keeps the temp directories.
// Usage: npm run build && node bench/manager-image.js
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cachedNodeVersion, nodeBinDir, nodeExecutable } from '../scripts/lib/node-binary.js';
import { mib, printTable, treeSize } from './runtime-lib.js';

const scaffold = fileURLToPath(new URL('../bin/scaffold.js', import.meta.url));
const KEEP = process.env.KEEP === '1';

// The Dockerfile before the manager was bundled (git history of templates/init/Dockerfile.hbs): its build stage's
// last RUN and its final stage's COPY --from=builder sources.
const UNBUNDLED = { run: 'npm run build && npm prune --omit=dev', final: ['/workspace/package.json', '/workspace/node_modules', '/workspace/dist'] };

/** A .dockerignore pattern as a regular expression (Go filepath.Match syntax plus `**`, as Docker reads it). */
function patternRegExp(pattern) {
  const p = pattern.replace(/^\/+/, '').replace(/\/+$/, '');
  let re = '';
  for (let i = 0; i < p.length; i++) {
    const c = p[i];
    if (c === '*' && p[i + 1] === '*') {
      i++;
      if (p[i + 1] === '/') {
        i++;
        re += '(?:.*/)?';
      } else re += '.*';
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[\\^$.|+()[\]{}]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/** Whether .dockerignore keeps `path` (relative, with /) out of the build context: the last matching rule decides. */
function makeIgnored(dockerignore) {
  const rules = dockerignore
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => (l.startsWith('!') ? { keep: true, re: patternRegExp(l.slice(1)) } : { keep: false, re: patternRegExp(l) }));
  return (path) => {
    const parts = path.split('/');
    const prefixes = parts.map((_, i) => parts.slice(0, i + 1).join('/'));
    let ignored = false;
    for (const r of rules) if (prefixes.some((p) => r.re.test(p))) ignored = !r.keep;
    return ignored;
  };
}

/** The instructions of each stage of a Dockerfile: [{ from, instructions: [{ op, args }] }]. */
function parseDockerfile(text) {
  const stages = [];
  let line = '';
  for (const raw of text.split('\n')) {
    if (/^\s*#/.test(raw)) continue;
    line += raw.replace(/\\\s*$/, ' ');
    if (/\\\s*$/.test(raw)) continue;
    const m = /^\s*(\w+)\s+(.*)$/.exec(line);
    line = '';
    if (!m) continue;
    const op = m[1].toUpperCase();
    if (op === 'FROM') stages.push({ from: m[2].trim(), instructions: [] });
    else stages.at(-1)?.instructions.push({ op, args: m[2].trim() });
  }
  return stages;
}

/** COPY's sources and destination (shell form or JSON form), and its flags. */
function copyArgs(args) {
  const flags = {};
  let rest = args;
  for (let m; (m = /^--(\w[\w-]*)=(\S+)\s+/.exec(rest)); rest = rest.slice(m[0].length)) flags[m[1]] = m[2];
  const words = rest.startsWith('[') ? JSON.parse(rest) : rest.split(/\s+/);
  return { flags, sources: words.slice(0, -1), dest: words.at(-1) };
}

/** Copies what COPY <sources> <dest> copies from the context (files .dockerignore lets through) into the stage. */
function copyFromContext(context, ignored, sources, dest, workdir) {
  const target = join(workdir, dest);
  const intoDir = dest.endsWith('/') || sources.length > 1;
  for (const src of sources) {
    const from = join(context, src);
    const st = lstatSync(from);
    if (st.isDirectory()) {
      // A directory's contents go into dest.
      cpSync(from, target, { recursive: true, filter: (p) => p === from || !ignored(relative(context, p)) });
    } else if (!ignored(relative(context, from))) {
      const to = intoDir ? join(target, src.split('/').at(-1)) : target;
      mkdirSync(dirname(to), { recursive: true });
      cpSync(from, to);
    }
  }
}

/** Packages installed under a node_modules directory, nested ones included: [{ name, path, bytes }]. */
function packagesIn(nodeModules) {
  const found = [];
  const visit = (dir) => {
    if (!existsSync(dir)) return;
    for (const e of readdirSync(dir)) {
      if (e.startsWith('.')) continue;
      const p = join(dir, e);
      if (e.startsWith('@')) {
        for (const s of readdirSync(p)) addPackage(`${e}/${s}`, join(p, s));
      } else addPackage(e, p);
    }
  };
  const addPackage = (name, path) => {
    if (!existsSync(join(path, 'package.json'))) return;
    found.push({ name, path, bytes: treeSize(path).bytes - treeSize(join(path, 'node_modules')).bytes });
    visit(join(path, 'node_modules'));
  };
  visit(nodeModules);
  return found;
}

const work = mkdtempSync(join(tmpdir(), 'ks-manager-image-'));
const project = join(work, 'crew-operator');
const builder = join(work, 'workspace');
mkdirSync(project);
mkdirSync(builder);

try {
  // The Node the builder image runs (the template's first FROM), first on PATH for every command.
  const builderFrom = parseDockerfile(readFileSync(new URL('../templates/init/Dockerfile.hbs', import.meta.url), 'utf8'))[0].from;
  const major = /^node:(\d+)/.exec(builderFrom)?.[1] ?? '22';
  const cached = cachedNodeVersion(major);
  const node = process.env.IMAGE_NODE || (cached ? join(nodeBinDir(cached), 'node') : nodeExecutable(major));
  const env = { ...process.env, PATH: `${dirname(node)}:${process.env.PATH}`, npm_config_fund: 'false', npm_config_audit: 'false', npm_config_update_notifier: 'false' };
  delete env.NODE_PATH;
  delete env.NODE_OPTIONS;
  const nodeVersion = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
  const npmVersion = execFileSync('npm', ['--version'], { env, encoding: 'utf8' }).trim();
  console.log(`builder: Node ${nodeVersion} (${builderFrom} runs Node ${major}), npm ${npmVersion}; work directory ${work}`);

  const timings = [];
  const run = (cwd, label, file, args) => {
    const t = performance.now();
    process.stderr.write(`$ ${label}\n`);
    execFileSync(file, args, { cwd, env, stdio: ['ignore', 'ignore', 'inherit'] });
    timings.push([label, ((performance.now() - t) / 1000).toFixed(1)]);
  };
  const sh = (cwd, command) => run(cwd, `(${relative(work, cwd)}) ${command}`, 'sh', ['-c', command]);

  // 1. The project, as a user scaffolds it, and its package-lock.json.
  run(project, 'scaffold init --domain example.com --skip-install', node, [scaffold, 'init', '--domain', 'example.com', '--skip-install']);
  run(project, 'scaffold create api --group crew --version v1 --kind Captain', node, [scaffold, 'create', 'api', '--group', 'crew', '--version', 'v1', '--kind', 'Captain']);
  sh(project, 'npm install');

  // 2. The build stage of the project's Dockerfile, in a directory of its own.
  const stages = parseDockerfile(readFileSync(join(project, 'Dockerfile'), 'utf8'));
  const [build, final] = [stages[0], stages.at(-1)];
  const ignored = makeIgnored(existsSync(join(project, '.dockerignore')) ? readFileSync(join(project, '.dockerignore'), 'utf8') : '');
  let workdir = '/';
  for (const { op, args } of build.instructions) {
    if (op === 'WORKDIR') workdir = args;
    else if (op === 'COPY') {
      const { flags, sources, dest } = copyArgs(args);
      if (flags.from) throw new Error(`the build stage copies from ${flags.from}: not handled here`);
      copyFromContext(project, ignored, sources, dest, builder);
    } else if (op === 'RUN') sh(builder, args);
    else if (op !== 'ENV' && op !== 'ARG' && op !== 'LABEL' && op !== 'USER') throw new Error(`the build stage's ${op} is not handled here`);
  }
  const inBuilder = (path) => {
    const rel = relative(workdir, path);
    if (rel.startsWith('..')) throw new Error(`${path} is outside the build stage's WORKDIR ${workdir}`);
    return join(builder, rel);
  };
  const measure = (sources) =>
    sources.map((src) => {
      const path = inBuilder(src);
      const size = treeSize(path);
      return { src: relative(workdir, src) + (lstatSync(path).isDirectory() ? '/' : ''), path, ...size };
    });
  const finalSources = final.instructions
    .filter((i) => i.op === 'COPY')
    .map((i) => copyArgs(i.args))
    .filter((c) => c.flags.from === 'builder')
    .flatMap((c) => c.sources);
  const bundled = measure(finalSources);
  // What the bundle holds, before the unbundled build changes node_modules.
  const bundleDir = bundled.find((s) => s.src === 'bundle/');
  const bundleFiles = bundleDir ? readdirSync(bundleDir.path, { recursive: true }).filter((f) => !lstatSync(join(bundleDir.path, f)).isDirectory()) : [];
  const bundleParts = bundleFiles
    .map((f) => ({ f, bytes: lstatSync(join(bundleDir.path, f)).size }))
    .sort((a, b) => b.bytes - a.bytes);

  // 3. The unbundled layout: the same build stage, finished the way the Dockerfile before the bundle did.
  sh(builder, UNBUNDLED.run);
  const unbundled = measure(UNBUNDLED.final);
  const nm = unbundled.find((s) => s.src === 'node_modules/');
  const packages = packagesIn(nm.path);

  const total = (parts) => parts.reduce((a, p) => ({ bytes: a.bytes + p.bytes, files: a.files + p.files }), { bytes: 0, files: 0 });
  const [b, u] = [total(bundled), total(unbundled)];
  console.log('\nCommands (seconds):');
  printTable(['command', 's'], timings);

  console.log(`\nFinal stage (COPY --from=builder), bytes as the files' apparent sizes:`);
  const row = (layout, s, packagesCell = '') => [layout, s.src, s.bytes.toLocaleString('en'), mib(s.bytes), s.files.toLocaleString('en'), packagesCell];
  printTable(
    ['layout', 'content', 'bytes', 'MiB', 'files', 'packages'],
    [
      ...bundled.map((s) => row('bundled', s)),
      ['bundled', 'total', b.bytes.toLocaleString('en'), mib(b.bytes), b.files.toLocaleString('en'), '0'],
      ...unbundled.map((s) => row('unbundled', s, s === nm ? String(packages.length) : '')),
      ['unbundled', 'total', u.bytes.toLocaleString('en'), mib(u.bytes), u.files.toLocaleString('en'), String(packages.length)],
    ],
  );
  console.log(`\nbundled ÷ unbundled: ${(b.bytes / u.bytes).toFixed(3)}× the bytes, ${(b.files / u.files).toFixed(4)}× the files; ` +
    `goal final stage ≤ 3 MiB: ${mib(b.bytes)} MiB (${b.bytes <= 3 * 1048576 ? 'met' : 'not met'})`);
  console.log('\nThe bundle, largest files first:');
  printTable(['file', 'bytes'], bundleParts.map(({ f, bytes }) => [f, bytes.toLocaleString('en')]));
  console.log('\nThe unbundled node_modules, largest packages first (top 10, nested node_modules counted apart):');
  printTable(['package', 'MiB'], [...packages].sort((x, y) => y.bytes - x.bytes).slice(0, 10).map((p) => [relative(nm.path, p.path), mib(p.bytes)]));
} finally {
  if (KEEP) console.log(`\nkept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
