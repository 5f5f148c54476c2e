// A scaffolded Dockerfile, built without a container engine: its stages' instructions carried out on directories
// that stand for each stage's filesystem. The build context is filtered by .dockerignore as Docker filters it; RUN
// runs on this machine with the Node the caller puts first on PATH; the final stage holds exactly what its COPY lines
// put there. Any instruction this cannot carry out faithfully is an error, so a Dockerfile that outgrows it fails its
// caller rather than passing for the wrong reason. Used by test/e2e/image.test.ts and bench/manager-image.js.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';

/**
 * The stages of a Dockerfile, with continuation lines joined and comments dropped. ARGs before the first FROM are
 * expanded in FROM lines (`FROM ${BASE_IMAGE}`), from their defaults or `buildArgs` (docker build --build-arg).
 */
export function parseDockerfile(text, buildArgs = {}) {
  const stages = [];
  const globalArgs = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const start = i;
    let line = lines[i];
    if (/^\s*(#|$)/.test(line)) continue;
    while (line.endsWith('\\') && i + 1 < lines.length) line = `${line.slice(0, -1)} ${lines[++i].trim()}`;
    const m = /^\s*([A-Za-z]+)\s+(.*)$/.exec(line);
    if (!m) throw new Error(`Dockerfile line ${start + 1}: cannot read "${line}"`);
    const keyword = m[1].toUpperCase();
    let rest = m[2].trim();
    const flags = {};
    for (let f = /^--([a-z-]+)=(\S+)\s+/.exec(rest); f; f = /^--([a-z-]+)=(\S+)\s+/.exec(rest)) {
      flags[f[1]] = f[2];
      rest = rest.slice(f[0].length);
    }
    if (keyword === 'ARG' && stages.length === 0) {
      const [, argName, value] = /^([A-Za-z_][A-Za-z0-9_]*)(?:=(.*))?$/.exec(rest) ?? [];
      if (argName === undefined) throw new Error(`Dockerfile line ${start + 1}: cannot read ARG "${rest}"`);
      globalArgs[argName] = buildArgs[argName] ?? value ?? '';
      continue;
    }
    if (keyword === 'FROM') {
      const expanded = rest.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (_, a, b) => {
        const argName = a ?? b;
        if (!(argName in globalArgs)) throw new Error(`Dockerfile line ${start + 1}: FROM uses $${argName}, no ARG`);
        return globalArgs[argName];
      });
      const [image, as, name] = expanded.split(/\s+/);
      stages.push({ image, name: as?.toUpperCase() === 'AS' ? name : undefined, instructions: [] });
      continue;
    }
    const stage = stages.at(-1);
    if (!stage) throw new Error(`Dockerfile line ${start + 1}: ${keyword} before FROM`);
    stage.instructions.push({ keyword, flags, text: rest, line: start + 1 });
  }
  return stages;
}

/** Docker's .dockerignore rules: the last pattern that matches a path (or a folder above it) decides. */
export function dockerignoreFilter(text) {
  const rules = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => {
      const exclude = !l.startsWith('!');
      const pattern = posix.normalize((exclude ? l : l.slice(1)).replace(/^\/+/, '')).replace(/\/+$/, '');
      const source = pattern
        .split('/')
        .map((part) =>
          part === '**'
            ? '.*'
            : part
                .replace(/[.+^${}()|[\]\\]/g, '\\$&')
                .replace(/\*/g, '[^/]*')
                .replace(/\?/g, '[^/]'),
        )
        .join('/')
        .replace(/\.\*\//g, '(.*/)?');
      return { exclude, regex: new RegExp(`^${source}$`) };
    });
  return (path) => {
    const parts = path.split('/');
    const prefixes = parts.map((_, i) => parts.slice(0, i + 1).join('/'));
    let included = true;
    for (const rule of rules) if (prefixes.some((p) => rule.regex.test(p))) included = !rule.exclude;
    return included;
  };
}

/** The files of a directory tree, relative to it, with '/' separators. */
export function treeFiles(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() || e.isSymbolicLink())
    .map((e) => relative(dir, join(e.parentPath, e.name)).split('\\').join('/'))
    .sort();
}

/** Bytes (apparent sizes, as an image layer's tar holds them) and files of a file or a tree; 0 when it is absent. */
export function treeSize(path) {
  const st = lstatSync(path, { throwIfNoEntry: false });
  if (!st) return { bytes: 0, files: 0 };
  if (!st.isDirectory()) return { bytes: st.size, files: 1 };
  let bytes = 0;
  let files = 0;
  for (const e of readdirSync(path)) {
    const sub = treeSize(join(path, e));
    bytes += sub.bytes;
    files += sub.files;
  }
  return { bytes, files };
}

/**
 * Builds `stages` (parseDockerfile's) with `context` as the build context, each stage's filesystem a folder under
 * `scratch`; returns the last stage, and each named stage's folder and WORKDIR in `stages`.
 */
export function buildStages(stages, context, scratch, run) {
  const ignorePath = join(context, '.dockerignore');
  const included = existsSync(ignorePath) ? dockerignoreFilter(readFileSync(ignorePath, 'utf8')) : () => true;
  const contextFiles = treeFiles(context).filter(included);
  const built = new Map();
  let image;
  stages.forEach((stage, index) => {
    const root = join(scratch, stage.name ?? `stage-${index}`);
    mkdirSync(root, { recursive: true });
    const current = { root, workdir: '/', user: undefined, entrypoint: [], stages: built };
    const inRoot = (path) => join(root, posix.resolve(current.workdir, path));
    for (const ins of stage.instructions) {
      const where = `Dockerfile line ${ins.line} (${ins.keyword} ${ins.text})`;
      switch (ins.keyword) {
        case 'WORKDIR':
          current.workdir = posix.resolve(current.workdir, ins.text);
          mkdirSync(inRoot('.'), { recursive: true });
          break;
        case 'COPY': {
          const args = ins.text.split(/\s+/);
          const dest = args.pop();
          const from = ins.flags.from;
          if (Object.keys(ins.flags).some((f) => f !== 'from'))
            throw new Error(`${where}: flags other than --from are not carried out here`);
          const sourceRoot = from === undefined ? undefined : built.get(from)?.root;
          if (from !== undefined && sourceRoot === undefined) throw new Error(`${where}: no stage named ${from}`);
          for (const src of args) copyInto(src, dest, { where, sourceRoot, contextFiles, context, inRoot });
          break;
        }
        case 'RUN': {
          const result = spawnSync('sh', ['-c', ins.text], {
            cwd: inRoot('.'),
            env: run.env,
            encoding: 'utf8',
            timeout: run.timeoutMs,
          });
          if (result.status !== 0)
            throw new Error(
              `${where} failed (${result.error?.code === 'ETIMEDOUT' ? `stopped after ${run.timeoutMs} ms` : `exit ${result.status ?? result.signal}`}):\n${`${result.stdout}${result.stderr}`.slice(-6000)}`,
            );
          break;
        }
        case 'USER': {
          const [uid, gid] = ins.text.split(':').map(Number);
          if (!Number.isInteger(uid)) throw new Error(`${where}: only a numeric USER is carried out here`);
          current.user = { uid, gid: gid ?? uid };
          break;
        }
        case 'ENTRYPOINT':
          current.entrypoint = JSON.parse(ins.text);
          break;
        default:
          throw new Error(`${where}: ${ins.keyword} is not carried out here`);
      }
    }
    if (stage.name) built.set(stage.name, { root, workdir: current.workdir });
    image = current;
  });
  if (!image) throw new Error('the Dockerfile has no stage');
  return image;
}

/** COPY of one source: from the build context (what .dockerignore lets through) or from an earlier stage's folder. */
function copyInto(src, dest, o) {
  const target = o.inRoot(dest);
  if (o.sourceRoot !== undefined) {
    const from = join(o.sourceRoot, src);
    if (!existsSync(from)) throw new Error(`${o.where}: ${src} does not exist in that stage`);
    const isDir = statSync(from).isDirectory();
    const to = isDir || !dest.endsWith('/') ? target : join(target, posix.basename(src));
    mkdirSync(isDir ? to : dirname(to), { recursive: true });
    cpSync(from, to, { recursive: true, verbatimSymlinks: true });
    return;
  }
  const prefix = posix.normalize(src).replace(/\/+$/, '');
  const single = o.contextFiles.includes(prefix);
  const files = single ? [prefix] : o.contextFiles.filter((f) => f.startsWith(`${prefix}/`));
  if (files.length === 0)
    throw new Error(`${o.where}: ${src} is not in the build context (missing, or left out by .dockerignore)`);
  for (const file of files) {
    const to = single
      ? dest.endsWith('/')
        ? join(target, posix.basename(file))
        : target
      : join(target, file.slice(prefix.length + 1));
    mkdirSync(dirname(to), { recursive: true });
    cpSync(join(o.context, file), to);
  }
}
