// The public API's source files: the entry points the "exports" of the runtime and envtest packages name (their
// "kubescaffold-source" targets, the TypeScript sources), and every module they re-export from (export ... from,
// followed transitively). The CLI package's own exports are deprecated re-exports of these and add nothing.
// eslint.config.js requires a doc comment on every export of these modules; the TypeDoc API reference documents the
// entry points. Parsing only (ts.createSourceFile, no type checking), so loading the lint config stays fast.
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** The packages whose exports are the public API, as folders relative to the repository root. */
export const PUBLIC_PACKAGES = ['src/runtime', 'src/envtest'];

/** The entry points' source files, relative to the repository root (e.g. src/runtime/rest/index.ts), in package.json order. */
export function publicEntryPoints() {
  return PUBLIC_PACKAGES.flatMap((dir) => {
    const pkg = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));
    return Object.values(pkg.exports)
      .filter((target) => typeof target === 'object' && typeof target['kubescaffold-source'] === 'string')
      .map((target) => join(dir, target['kubescaffold-source']).split('\\').join('/'));
  });
}

/** Every source file whose exports are reachable from an entry point through re-exports, sorted, relative to the root. */
export function publicApiFiles() {
  const seen = new Set();
  const pending = publicEntryPoints().map((p) => resolve(root, p));
  while (pending.length > 0) {
    const file = pending.pop();
    if (seen.has(file)) continue;
    seen.add(file);
    const source = ts.createSourceFile(
      file,
      readFileSync(file, 'utf8'),
      ts.ScriptTarget.Latest,
      false,
      ts.ScriptKind.TS,
    );
    for (const stmt of source.statements) {
      if (
        !ts.isExportDeclaration(stmt) ||
        stmt.moduleSpecifier === undefined ||
        !ts.isStringLiteral(stmt.moduleSpecifier)
      )
        continue;
      const spec = stmt.moduleSpecifier.text;
      if (!spec.startsWith('.')) continue; // a package's own types (export type * as k8s from '@kubernetes/client-node')
      pending.push(resolve(dirname(file), spec.replace(/\.js$/, '.ts')));
    }
  }
  return [...seen].map((f) => relative(root, f).split('\\').join('/')).sort();
}
