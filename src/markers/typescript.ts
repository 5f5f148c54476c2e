/**
 * The TypeScript compiler bundled with ts-morph, loaded with require(): importing this CommonJS bundle as ESM makes
 * Node scan its 9 MB for named exports first, and loading all of ts-morph adds its own wrappers we do not use; both
 * showed in `scaffold manifests`' start-up time.
 */
import { createRequire } from 'node:module';
import type { ts as TypeScript } from 'ts-morph';

const require = createRequire(import.meta.url);

function load(): typeof TypeScript {
  try {
    // the compiler file inside ts-morph's own dependency (no "exports" map restricts it)
    const fromTsMorph = createRequire(require.resolve('ts-morph'));
    return fromTsMorph('@ts-morph/common/dist/typescript.js') as typeof TypeScript;
  } catch {
    return (require('ts-morph') as { ts: typeof TypeScript }).ts;
  }
}

export const ts: typeof TypeScript = load();
