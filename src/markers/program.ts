/**
 * The project's TypeScript sources as packages (one per folder), with the cross-file type resolution the schema
 * generator needs. Resolution is syntactic (imports followed by path), so generation needs neither node_modules
 * nor a type-check of the project, and a changed file is re-read on its own.
 */
import { readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { resolveInProject } from '../files/confine.js';
import { decodeUtf8 } from '../files/utf8.js';
import { ts } from './typescript.js';
import { collectFile, MarkerSet, type SourceInfo, type TypeDecl } from './collector.js';
import { listSourceFiles } from './paths.js';

export { expandPaths, isSourceFile } from './paths.js';

/** One folder of TypeScript sources, read as a Go package is by controller-gen: its files and package-level markers. */
export interface Package {
  /** Absolute path of the folder. */
  dir: string;
  /** The folder name (the default API version). */
  name: string;
  files: SourceInfo[];
  markers: MarkerSet;
}

/** What a type name resolves to: a declaration in the project, a type from a package module, or why neither. */
export type Resolved =
  | { kind: 'decl'; decl: TypeDecl }
  /** A type from a package module, e.g. `int32` from '@kubescaffold/runtime' or `k8s.V1Container`. */
  | { kind: 'external'; module: string; name: string }
  | { kind: 'unresolved'; why: string };

/** The sources read so far, cached by path, and the syntactic resolution of type names across their imports. */
export class SourceProgram {
  private readonly files = new Map<string, SourceInfo | null>();
  private readonly modules = new Map<string, string | undefined>();

  constructor(readonly root: string) {}

  /**
   * Reads (once) and collects a file; undefined if it does not exist. A file outside the project, or reached through
   * a link that leaves it, is refused (OutsideProjectError), and so is one that is not valid UTF-8 (InvalidUtf8Error).
   */
  file(path: string): SourceInfo | undefined {
    const abs = resolve(path);
    let info = this.files.get(abs);
    if (info === undefined) {
      const real = resolveInProject(this.root, abs, 'read');
      let bytes: Buffer;
      try {
        bytes = readFileSync(real);
      } catch {
        this.files.set(abs, null);
        return undefined;
      }
      info = collectFile(abs, decodeUtf8(bytes, relative(resolve(this.root), abs)));
      this.files.set(abs, info);
    }
    return info ?? undefined;
  }

  /** Every file read so far (packages and the files their types came from). */
  loadedFiles(): SourceInfo[] {
    return [...this.files.values()].filter((f): f is SourceInfo => f !== null);
  }

  /** Forgets a file so the next access re-reads it (for --watch). */
  invalidate(path: string): void {
    this.files.delete(resolve(path));
    this.modules.clear(); // a new or removed file can change what an import resolves to
  }

  /** The package in one folder (its direct .ts files). */
  loadPackage(dir: string): Package {
    const abs = resolve(dir);
    const files = listSourceFiles(abs)
      .map((f) => this.file(f))
      .filter((f): f is SourceInfo => f !== undefined);
    return { dir: abs, name: basename(abs), files, markers: new MarkerSet(files.flatMap((f) => f.packageMarkers)) };
  }

  /** Resolves a type name used in `from` (local declaration or import). */
  resolveName(from: SourceInfo, name: string): Resolved {
    const dot = name.indexOf('.');
    const head = dot < 0 ? name : name.slice(0, dot);
    const local = from.types.get(head);
    if (local && dot < 0) return { kind: 'decl', decl: local };
    const imp = from.imports.get(head);
    if (!imp) {
      if (dot < 0)
        return {
          kind: 'unresolved',
          why: `cannot find type ${name} in ${basename(from.path)} (declare it or import it)`,
        };
      return { kind: 'unresolved', why: `cannot resolve ${name}` };
    }
    const rest = dot < 0 ? '' : name.slice(dot);
    if (!imp.module.startsWith('.')) {
      const exported = imp.name === '*' ? rest.slice(1) : imp.name + rest;
      return { kind: 'external', module: imp.module, name: exported };
    }
    if (imp.name === '*') {
      if (!rest) return { kind: 'unresolved', why: `${name} is a module namespace, not a type` };
      return this.resolveExport(from, imp.module, rest.slice(1), new Set());
    }
    if (rest) return { kind: 'unresolved', why: `cannot resolve ${name}` };
    return this.resolveExport(from, imp.module, imp.name, new Set());
  }

  private resolveExport(from: SourceInfo, module: string, name: string, seen: Set<string>): Resolved {
    const key = `${dirname(from.path)}\0${module}`;
    if (!this.modules.has(key)) this.modules.set(key, resolveModulePath(dirname(from.path), module));
    const target = this.modules.get(key);
    const info = target ? this.file(target) : undefined;
    if (!info) return { kind: 'unresolved', why: `cannot find module ${module} imported by ${basename(from.path)}` };
    if (seen.has(info.path)) return { kind: 'unresolved', why: `circular re-export of ${name}` };
    seen.add(info.path);
    const decl = info.types.get(name);
    if (decl) {
      if (!decl.exported) return { kind: 'unresolved', why: `${name} is not exported from ${basename(info.path)}` };
      return { kind: 'decl', decl };
    }
    // `export { X } from './x.js'`, `export * from './x.js'`, and `import { X }` + `export { X }`
    for (const stmt of info.source.statements) {
      if (!ts.isExportDeclaration(stmt)) continue;
      const spec =
        stmt.moduleSpecifier && ts.isStringLiteral(stmt.moduleSpecifier) ? stmt.moduleSpecifier.text : undefined;
      if (!stmt.exportClause) {
        if (spec) {
          const r = this.resolveExport(info, spec, name, seen);
          if (r.kind !== 'unresolved') return r;
        }
        continue;
      }
      if (!ts.isNamedExports(stmt.exportClause)) continue;
      for (const el of stmt.exportClause.elements) {
        if (el.name.text !== name) continue;
        const original = (el.propertyName ?? el.name).text;
        if (spec)
          return spec.startsWith('.')
            ? this.resolveExport(info, spec, original, seen)
            : { kind: 'external', module: spec, name: original };
        return this.resolveName(info, original);
      }
    }
    return { kind: 'unresolved', why: `${name} is not exported from ${basename(info.path)}` };
  }
}

/** `./foo.js` -> `./foo.ts` (NodeNext style), `./foo` -> `./foo.ts` or `./foo/index.ts`. */
function resolveModulePath(dir: string, module: string): string | undefined {
  const base = resolve(dir, module);
  const candidates = [base.replace(/\.(m?js)$/, '.ts'), `${base}.ts`, join(base, 'index.ts'), base];
  return candidates.find((c) => c.endsWith('.ts') && isFile(c));
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}
