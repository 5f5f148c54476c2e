/**
 * The TypeScript compiler bundled with ts-morph. Loading its 9 MB bundle is most of `scaffold manifests`' fixed
 * cost, so it is loaded as CommonJS (importing it as ESM makes Node scan it for named exports first), without the
 * rest of ts-morph. Node 22.1+ caches its compiled code in the module compile cache that bin/scaffold.js enables;
 * elsewhere (Node 20, or the code loaded without the CLI) a V8 code cache is kept in ~/.cache/kubescaffold/v8. Any
 * problem with that cache falls back to a plain require().
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import module, { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import vm from 'node:vm';
import type { ts as TypeScript } from 'ts-morph';

const require = createRequire(import.meta.url);

function compilerPath(): string | undefined {
  try {
    // the compiler file inside ts-morph's own dependency (no "exports" map restricts it)
    return createRequire(require.resolve('ts-morph')).resolve('@ts-morph/common/dist/typescript.js');
  } catch {
    return undefined;
  }
}

function cacheFile(file: string): string {
  const st = statSync(file);
  const key = createHash('sha256').update(`${file}\0${st.size}\0${st.mtimeMs}\0${process.version}\0${process.arch}`).digest('hex').slice(0, 32);
  const root = process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache');
  return join(root, 'kubescaffold', 'v8', `typescript-${key}.bin`);
}

/** Runs the CommonJS file through vm.Script with a code cache; undefined when that is not possible here. */
function loadWithCodeCache(file: string): typeof TypeScript | undefined {
  if (process.env.KUBESCAFFOLD_NO_CODE_CACHE) return undefined;
  try {
    const cachePath = cacheFile(file);
    let cachedData: Buffer | undefined;
    try {
      cachedData = readFileSync(cachePath);
    } catch {
      cachedData = undefined;
    }
    const source = readFileSync(file, 'utf8');
    const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: file, cachedData });
    const wrapper = script.runInThisContext() as (e: object, r: NodeJS.Require, m: { exports: object }, f: string, d: string) => void;
    const mod = { exports: {} as object };
    wrapper.call(mod.exports, mod.exports, createRequire(file), mod, file, dirname(file));
    const ts = mod.exports as typeof TypeScript;
    if (typeof ts.createSourceFile !== 'function') return undefined;
    if (cachedData === undefined || script.cachedDataRejected) {
      // compile the parser's hot functions first, so the cache holds them too
      ts.createSourceFile('warm.ts', 'export interface A { a?: string[]; b: Record<string, number> }', ts.ScriptTarget.Latest, true);
      mkdirSync(dirname(cachePath), { recursive: true });
      const tmp = `${cachePath}.${process.pid}.tmp`;
      writeFileSync(tmp, script.createCachedData());
      renameSync(tmp, cachePath);
    }
    return ts;
  } catch {
    return undefined;
  }
}

function load(): typeof TypeScript {
  const file = compilerPath();
  if (file) {
    // Where Node's own module compile cache is on (Node 22.1+, enabled by bin/scaffold.js), a plain require uses it.
    const compileCacheOn = (module as { getCompileCacheDir?: () => string | undefined }).getCompileCacheDir?.() !== undefined;
    const cached = compileCacheOn ? undefined : loadWithCodeCache(file);
    if (cached) return cached;
    try {
      return require(file) as typeof TypeScript;
    } catch {
      // fall through to the public entry point
    }
  }
  return (require('ts-morph') as { ts: typeof TypeScript }).ts;
}

export const ts: typeof TypeScript = load();
