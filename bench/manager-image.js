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
// stages then run as `docker build` would run them (scripts/lib/dockerfile.js: the build context as .dockerignore
// filters it, the COPY and RUN lines of the project's Dockerfile, so this follows the template), and the final
// stage's content is measured: bytes (apparent sizes, as the layer's tar holds them) and files. The unbundled layout
// finishes the same build stage as the Dockerfile before the bundle did and measures what its final stage copied,
// with the number of packages in node_modules.
// All commands run with the Node major of the Dockerfile's builder image (node:22) first on PATH: IMAGE_NODE=<path
// to node>, else that major from the cache of scripts/lib/node-binary.js (downloaded from the npm registry on first
// use). npm install and npm ci reach the package registry (or npm's cache). KEEP=1 keeps the temp directories.
// Usage: npm run build && node bench/manager-image.js
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cachedNodeVersion, nodeBinDir, nodeExecutable } from '../scripts/lib/node-binary.js';
import { buildStages, parseDockerfile, treeFiles, treeSize } from '../scripts/lib/dockerfile.js';
import { mib, printTable } from './runtime-lib.js';

const scaffold = fileURLToPath(new URL('../bin/scaffold.js', import.meta.url));
const KEEP = process.env.KEEP === '1';

// The Dockerfile before the manager was bundled (git history of templates/init/Dockerfile.hbs): its build stage's
// last RUN and its final stage's COPY --from=builder sources.
const UNBUNDLED = {
  run: 'npm run build && npm prune --omit=dev',
  final: ['/workspace/package.json', '/workspace/node_modules', '/workspace/dist'],
};

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
const scratch = join(work, 'image');
mkdirSync(project);

try {
  // The Node the builder image runs (the template's first FROM), first on PATH for every command.
  // (A regular expression: the template holds handlebars lines that are no Dockerfile yet.)
  const builderFrom =
    /^FROM\s+(\S+)/m.exec(readFileSync(new URL('../templates/init/Dockerfile.hbs', import.meta.url), 'utf8'))?.[1] ??
    'node:22';
  const major = /^node:(\d+)/.exec(builderFrom)?.[1] ?? '22';
  const cached = cachedNodeVersion(major);
  const node = process.env.IMAGE_NODE || (cached ? join(nodeBinDir(cached), 'node') : nodeExecutable(major));
  const env = {
    ...process.env,
    PATH: `${dirname(node)}:${process.env.PATH}`,
    npm_config_fund: 'false',
    npm_config_audit: 'false',
    npm_config_update_notifier: 'false',
  };
  delete env.NODE_PATH;
  delete env.NODE_OPTIONS;
  const nodeVersion = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
  const npmVersion = execFileSync('npm', ['--version'], { env, encoding: 'utf8' }).trim();
  console.log(
    `builder: Node ${nodeVersion} (${builderFrom} runs Node ${major}), npm ${npmVersion}; work directory ${work}`,
  );

  const timings = [];
  const run = (cwd, label, file, args) => {
    const t = performance.now();
    process.stderr.write(`$ ${label}\n`);
    execFileSync(file, args, { cwd, env, stdio: ['ignore', 'ignore', 'inherit'] });
    timings.push([label, ((performance.now() - t) / 1000).toFixed(1)]);
  };
  const sh = (cwd, command) => run(cwd, `(${relative(work, cwd)}) ${command}`, 'sh', ['-c', command]);

  // 1. The project, as a user scaffolds it, and its package-lock.json.
  run(project, 'scaffold init --domain example.com --skip-install', node, [
    scaffold,
    'init',
    '--domain',
    'example.com',
    '--skip-install',
  ]);
  run(project, 'scaffold create api --group crew --version v1 --kind Captain', node, [
    scaffold,
    'create',
    'api',
    '--group',
    'crew',
    '--version',
    'v1',
    '--kind',
    'Captain',
  ]);
  sh(project, 'npm install');

  // 2. The stages of the project's Dockerfile, as docker build runs them.
  const t = performance.now();
  process.stderr.write("$ the Dockerfile's stages (npm ci, npm run build && npm run bundle)\n");
  const image = buildStages(parseDockerfile(readFileSync(join(project, 'Dockerfile'), 'utf8')), project, scratch, {
    env,
    timeoutMs: 30 * 60_000,
  });
  timings.push(["the Dockerfile's stages", ((performance.now() - t) / 1000).toFixed(1)]);
  const app = join(image.root, image.workdir);
  const bundled = readdirSync(app)
    .sort()
    .map((entry) => ({
      src: entry + (lstatSync(join(app, entry)).isDirectory() ? '/' : ''),
      ...treeSize(join(app, entry)),
    }));
  const bundleParts = treeFiles(app)
    .map((f) => ({ f, bytes: lstatSync(join(app, f)).size }))
    .sort((a, b) => b.bytes - a.bytes);

  // 3. The unbundled layout: the same build stage, finished the way the Dockerfile before the bundle did.
  const builder = image.stages.get('builder');
  if (!builder) throw new Error('the Dockerfile has no stage named builder');
  const inBuilder = join(builder.root, builder.workdir);
  sh(inBuilder, UNBUNDLED.run);
  const unbundled = UNBUNDLED.final.map((src) => {
    const path = join(builder.root, src);
    return {
      src: relative(builder.workdir, src) + (lstatSync(path).isDirectory() ? '/' : ''),
      path,
      ...treeSize(path),
    };
  });
  const nm = unbundled.find((s) => s.src === 'node_modules/');
  const packages = packagesIn(nm.path);

  const total = (parts) =>
    parts.reduce((a, p) => ({ bytes: a.bytes + p.bytes, files: a.files + p.files }), { bytes: 0, files: 0 });
  const [b, u] = [total(bundled), total(unbundled)];
  console.log('\nCommands (seconds):');
  printTable(['command', 's'], timings);

  console.log(`\nFinal stage (COPY --from=builder), bytes as the files' apparent sizes:`);
  const row = (layout, s, packagesCell = '') => [
    layout,
    s.src,
    s.bytes.toLocaleString('en'),
    mib(s.bytes),
    s.files.toLocaleString('en'),
    packagesCell,
  ];
  printTable(
    ['layout', 'content', 'bytes', 'MiB', 'files', 'packages'],
    [
      ...bundled.map((s) => row('bundled', s)),
      ['bundled', 'total', b.bytes.toLocaleString('en'), mib(b.bytes), b.files.toLocaleString('en'), '0'],
      ...unbundled.map((s) => row('unbundled', s, s === nm ? String(packages.length) : '')),
      [
        'unbundled',
        'total',
        u.bytes.toLocaleString('en'),
        mib(u.bytes),
        u.files.toLocaleString('en'),
        String(packages.length),
      ],
    ],
  );
  console.log(
    `\nbundled ÷ unbundled: ${(b.bytes / u.bytes).toFixed(3)}× the bytes, ${(b.files / u.files).toFixed(4)}× the files; ` +
      `goal final stage ≤ 3 MiB: ${mib(b.bytes)} MiB (${b.bytes <= 3 * 1048576 ? 'met' : 'not met'})`,
  );
  console.log('\nThe bundle, largest files first:');
  printTable(
    ['file', 'bytes'],
    bundleParts.map(({ f, bytes }) => [f, bytes.toLocaleString('en')]),
  );
  console.log('\nThe unbundled node_modules, largest packages first (top 10, nested node_modules counted apart):');
  printTable(
    ['package', 'MiB'],
    [...packages]
      .sort((x, y) => y.bytes - x.bytes)
      .slice(0, 10)
      .map((p) => [relative(nm.path, p.path), mib(p.bytes)]),
  );
} finally {
  if (KEEP) console.log(`\nkept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
