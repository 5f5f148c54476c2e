/**
 * The TypeScript compiler, from the `typescript` package's public entry point. Only its parser is used (the
 * generator resolves types itself, see program.ts), and nothing else in the process holds TypeScript nodes, so no
 * second copy of the compiler has to agree with this one.
 *
 * Loading the 9 MB compiler is most of `scaffold manifests`' fixed cost. It is required as CommonJS: an ESM import
 * would make Node scan the whole file for named exports first. On Node 22.1+ the module compile cache that
 * bin/scaffold.js enables keeps its compiled code between runs; Node 20 compiles it on every run.
 */
import { createRequire } from 'node:module';
import type * as TypeScript from 'typescript';

/** The TypeScript compiler API, loaded once with require (see above). */
export const ts = createRequire(import.meta.url)('typescript') as typeof TypeScript;
