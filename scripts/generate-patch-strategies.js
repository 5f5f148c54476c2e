/**
 * Generates src/runtime/fake/patch-strategies.ts: the strategic-merge metadata of Kubernetes' built-in kinds, read from
 * the `patchStrategy` and `patchMergeKey` struct tags of k8s.io/api (and meta/v1 of k8s.io/apimachinery) at
 * K8S_MODULE_VERSION, the modules the project already pins for its schemas. The API server takes the same tags, by
 * reflection, when it applies a strategic merge patch. Needs Go and the module proxy (or a module cache):
 *
 *   node scripts/generate-patch-strategies.js [--check]
 *
 * --check writes nothing and exits 1 when the file differs from what it would write (test/runtime/fake/
 * patch-strategies.test.ts runs it). A build tool: not part of the package.
 *
 * Only what a strategic merge needs is kept: the struct types on a path from a kind to a field with a strategy, and
 * the kinds with such a field outside metadata (every kind has metadata's finalizers and ownerReferences).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { K8S_MODULE_VERSION } from './lib/controller-gen.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outFile = join(root, 'src/runtime/fake/patch-strategies.ts');
const META = 'meta/v1';

/** The folder of a module version in the module cache, downloading it when missing. */
function moduleDir(module) {
  const out = execFileSync('go', ['mod', 'download', '-json', `${module}@${K8S_MODULE_VERSION}`], {
    cwd: root,
    env: { ...process.env, GOWORK: 'off', GOFLAGS: '-mod=mod' },
    encoding: 'utf8',
  });
  return JSON.parse(out).Dir;
}

/**
 * The Go packages read: every group/version of k8s.io/api, and meta/v1. `id` names a package in the table
 * ('apps/v1', 'core/v1', 'meta/v1'); `group` is its API group ('' for core).
 */
function packagesOf(apiDir, machineryDir) {
  const pkgs = [];
  for (const g of readdirSync(apiDir, { withFileTypes: true })) {
    if (!g.isDirectory() || g.name === 'testdata') continue;
    for (const v of readdirSync(join(apiDir, g.name), { withFileTypes: true })) {
      if (!v.isDirectory() || !/^v\d/.test(v.name)) continue;
      const dir = join(apiDir, g.name, v.name);
      // register.go names the group ("" for core); a few packages have only doc.go's +groupName.
      const text = ['register.go', 'doc.go']
        .filter((f) => existsSync(join(dir, f)))
        .map((f) => readFileSync(join(dir, f), 'utf8'))
        .join('\n');
      const group = (/const GroupName = "([^"]*)"/.exec(text) ?? /\+groupName=(\S*)/.exec(text))?.[1] ?? '';
      pkgs.push({
        id: `${g.name}/${v.name}`,
        importPath: `k8s.io/api/${g.name}/${v.name}`,
        dir,
        group,
        version: v.name,
      });
    }
  }
  pkgs.push({
    id: META,
    importPath: 'k8s.io/apimachinery/pkg/apis/meta/v1',
    dir: join(machineryDir, 'pkg/apis/meta/v1'),
    group: 'meta.k8s.io',
    version: 'v1',
  });
  return pkgs.sort((a, b) => a.id.localeCompare(b.id));
}

/**
 * A Go type expression as the table needs it: the named type it reaches through pointers, slices and map values
 * (`ref`, a 'pkg/v.Name' id, or undefined for a builtin or a type outside the packages read).
 */
function typeRef(expr, imports, pkg) {
  let e = expr.trim();
  for (;;) {
    if (e.startsWith('*')) e = e.slice(1);
    else if (e.startsWith('[]')) e = e.slice(2);
    else if (e.startsWith('map[')) e = e.slice(e.indexOf(']') + 1);
    else break;
  }
  const dot = e.indexOf('.');
  if (dot < 0) return { ref: /^[A-Z]/.test(e) ? `${pkg.id}.${e}` : undefined };
  const target = imports.get(e.slice(0, dot));
  return { ref: target ? `${target}.${e.slice(dot + 1)}` : undefined };
}

/** The import aliases of one Go file that name a package read, as alias → package id. */
function importsOf(text, byImportPath) {
  const imports = new Map();
  for (const m of text.matchAll(/^\s*(?:(\w+)\s+)?"([^"]+)"\s*$/gm)) {
    const pkg = byImportPath.get(m[2]);
    if (pkg) imports.set(m[1] ?? m[2].split('/').at(-1), pkg.id);
  }
  return imports;
}

/**
 * The struct types (JSON fields with their tags and types, inline embeddings) and the named non-struct types
 * (`type ResourceList map[...]...`) of a package, by id.
 */
function readPackage(pkg, byImportPath, structs, named, namedMaps) {
  for (const file of readdirSync(pkg.dir)) {
    if (!file.endsWith('.go') || file.endsWith('_test.go') || file.startsWith('zz_') || file.startsWith('generated'))
      continue;
    const text = readFileSync(join(pkg.dir, file), 'utf8');
    const imports = importsOf(text, byImportPath);
    for (const m of text.matchAll(/^type (\w+) struct \{\n([\s\S]*?)^\}/gm)) {
      const [, name, body] = m;
      const fields = [];
      const inline = [];
      let typeMeta = false;
      for (const line of body.split('\n')) {
        const f = /^\t(?:(\w+)\s+)?([\w.*[\]]+)\s+`([^`]*)`/.exec(line);
        if (!f) continue;
        const [, fieldName, type, tags] = f;
        const json = /json:"([^"]*)"/.exec(tags)?.[1];
        if (json === undefined) continue;
        const jsonName = json.split(',')[0];
        if (jsonName === '-') continue;
        const t = typeRef(type, imports, pkg);
        if (!fieldName && jsonName === '') {
          if (/TypeMeta$/.test(type)) typeMeta = true;
          else if (t.ref) inline.push(t.ref);
          continue;
        }
        fields.push({
          json: jsonName || fieldName || type.split('.').at(-1),
          type: type.replace(/^\*/, ''),
          imports,
          strategy: /patchStrategy:"([^"]*)"/.exec(tags)?.[1] ?? '',
          mergeKey: /patchMergeKey:"([^"]*)"/.exec(tags)?.[1] ?? '',
          ref: t.ref,
        });
      }
      structs.set(`${pkg.id}.${name}`, { pkg, name, fields, inline, typeMeta });
    }
    for (const m of text.matchAll(/^type (\w+) ((?:\[\]|map\[|\*)[\w.*[\]]+)\s*$/gm)) {
      named.set(`${pkg.id}.${m[1]}`, typeRef(m[2], imports, pkg).ref);
      if (m[2].startsWith('map[')) namedMaps.add(`${pkg.id}.${m[1]}`);
    }
  }
}

/** A struct's JSON fields with those of the structs it embeds inline, as encoding/json sees them. */
function flatFields(id, structs, seen = new Set()) {
  const s = structs.get(id);
  if (!s || seen.has(id)) return [];
  seen.add(id);
  const own = new Set(s.fields.map((f) => f.json));
  const embedded = s.inline.flatMap((e) => flatFields(e, structs, seen)).filter((f) => !own.has(f.json));
  return [...s.fields, ...embedded];
}

/** The table: struct id → JSON field → [strategy, merge key, struct id], and kind → struct id. */
export function patchStrategies() {
  const pkgs = packagesOf(moduleDir('k8s.io/api'), moduleDir('k8s.io/apimachinery'));
  const byImportPath = new Map(pkgs.map((p) => [p.importPath, p]));
  const structs = new Map();
  const named = new Map();
  const namedMaps = new Set();
  for (const pkg of pkgs) readPackage(pkg, byImportPath, structs, named, namedMaps);
  // A named slice or map type stands for the struct it holds.
  const resolve = (ref) => {
    for (let i = 0; ref && !structs.has(ref) && i < 5; i++) ref = named.get(ref);
    return ref && structs.has(ref) ? ref : undefined;
  };
  const flat = new Map(
    [...structs.keys()].map((id) => [id, flatFields(id, structs).map((f) => ({ ...f, ref: resolve(f.ref) }))]),
  );
  // The structs with a strategy somewhere below them, to a fixpoint.
  const strategic = new Set();
  for (let changed = true; changed;) {
    changed = false;
    for (const [id, fields] of flat) {
      if (strategic.has(id)) continue;
      if (fields.some((f) => f.strategy !== '' || (f.ref && strategic.has(f.ref)))) {
        strategic.add(id);
        changed = true;
      }
    }
  }
  const kinds = {};
  const used = new Set();
  const reach = (id) => {
    if (used.has(id)) return;
    used.add(id);
    for (const f of flat.get(id)) if (f.ref && strategic.has(f.ref)) reach(f.ref);
  };
  for (const [id, s] of structs) {
    if (!s.typeMeta || s.name.endsWith('List') || s.pkg.id === META || !strategic.has(id)) continue;
    // Every kind has metadata: a kind with no other strategy needs no entry.
    const beyondMeta = flat
      .get(id)
      .some((f) => f.json !== 'metadata' && (f.strategy !== '' || (f.ref && strategic.has(f.ref))));
    if (!beyondMeta) continue;
    kinds[`${s.pkg.group ? `${s.pkg.group}/` : ''}${s.pkg.version}/${s.name}`] = id;
    reach(id);
  }
  reach(`${META}.ObjectMeta`);
  const types = {};
  for (const id of [...used].sort()) {
    types[id] = Object.fromEntries(
      flat
        .get(id)
        .filter((f) => f.strategy !== '' || (f.ref && strategic.has(f.ref)))
        .map((f) => {
          const entry = [f.strategy, f.mergeKey];
          if (f.ref && strategic.has(f.ref)) entry.push(f.ref);
          return [f.json, entry];
        }),
    );
  }
  // JSON names that are a Go map wherever a struct has them: the server leaves such a field out when it is empty.
  const mapNames = new Map();
  for (const s of structs.values())
    for (const f of s.fields) {
      const isMap =
        f.type.startsWith('map[') || namedMaps.has(typeRef(f.type, f.imports, s.pkg).ref ?? '') || undefined;
      mapNames.set(f.json, (mapNames.get(f.json) ?? true) && isMap === true);
    }
  return {
    maps: [...mapNames]
      .filter(([, always]) => always)
      .map(([name]) => name)
      .sort(),
    kinds: Object.fromEntries(Object.entries(kinds).sort(([a], [b]) => a.localeCompare(b))),
    types,
  };
}

/** The generated module's text, formatted as the repository formats TypeScript. */
export async function render() {
  const { kinds, types, maps } = patchStrategies();
  const source = `// Code generated by scripts/generate-patch-strategies.js from the patchStrategy and patchMergeKey tags of k8s.io/api
// and k8s.io/apimachinery ${K8S_MODULE_VERSION}. DO NOT EDIT.

/** One field's strategic-merge metadata: [patchStrategy, patchMergeKey, the struct type it holds (when it matters)]. */
export type PatchField = readonly [strategy: string, mergeKey: string, type?: string];

/**
 * The struct types on a path from a kind to a field with a patch strategy, by Go package and name, with their JSON
 * fields that have a strategy or lead to one. Fields not listed merge as maps and replace as lists.
 */
export const PATCH_TYPES: Readonly<Record<string, Readonly<Record<string, PatchField>>>> = ${JSON.stringify(types)};

/** The struct type of each built-in kind with a strategy outside metadata, by "apiVersion/Kind". */
export const PATCH_KINDS: Readonly<Record<string, string>> = ${JSON.stringify(kinds)};

/**
 * The JSON names that are a Go map (labels, data, nodeSelector, ...) in every struct with a field of that name. The
 * server stores an empty map as none, so a strategic merge that empties one leaves the field out.
 */
export const MAP_FIELDS: ReadonlySet<string> = new Set(${JSON.stringify(maps)});

/** The type of every kind's metadata. */
export const OBJECT_META = '${META}.ObjectMeta';
`;
  return format(source, { ...(await resolveConfig(outFile)), filepath: outFile });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const text = await render();
  if (process.argv.includes('--check')) {
    const current = readFileSync(outFile, 'utf8');
    if (current !== text) {
      console.error(`${relative(root, outFile)} is stale: run node scripts/generate-patch-strategies.js`);
      process.exit(1);
    }
    console.log(`${relative(root, outFile)} is up to date`);
  } else {
    writeFileSync(outFile, text);
    console.log(`${relative(root, outFile)}: ${text.length} bytes`);
  }
}
