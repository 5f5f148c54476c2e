/** Type-checks generated TypeScript the way a project compiles it, with the runtime package from this repository. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

// the built declarations when there are (much quicker to check against), else the sources
const built = join(import.meta.dirname, '../../src/runtime/dist/index.d.ts');
const runtimeEntry = existsSync(built) ? built : join(import.meta.dirname, '../../src/runtime/index.ts');
// its entry points (@kubescaffold/runtime/client, ...), from the same place
const runtimeSubpath = existsSync(built)
  ? join(import.meta.dirname, '../../src/runtime/dist/*/index.d.ts')
  : join(import.meta.dirname, '../../src/runtime/*/index.ts');

/** The compiler's errors for the .ts files under `dir`, one line each (empty when it compiles). */
export function typeErrors(files: readonly string[]): string[] {
  const program = ts.createProgram(files, {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    noUncheckedIndexedAccess: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
    paths: { '@kubescaffold/runtime': [runtimeEntry], '@kubescaffold/runtime/*': [runtimeSubpath] },
  });
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file === undefined || files.includes(d.file.fileName))
    .map((d) => {
      const where = d.file ? `${d.file.fileName}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}: ` : '';
      return `${where}${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
    });
}
