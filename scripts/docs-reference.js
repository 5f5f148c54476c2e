#!/usr/bin/env node
// Writes the generated references: docs/reference/cli.md from the built CLI's commander definitions
// (src/cli/reference.ts), docs/reference/markers.md from the marker registry (src/markers/reference.ts), and
// docs/reference/api/ from the doc comments of the public entry points (TypeDoc, scripts/lib/api-reference.js).
// Usage: npm run docs:reference
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { writeApiReference } from './lib/api-reference.js';

const { buildProgram } = await import(new URL('../dist/cli/index.js', import.meta.url).href);
const { cliReference } = await import(new URL('../dist/cli/reference.js', import.meta.url).href);
const { markerReference } = await import(new URL('../dist/markers/reference.js', import.meta.url).href);
mkdirSync(fileURLToPath(new URL('../docs/reference/', import.meta.url)), { recursive: true });
for (const [name, text] of [
  ['cli.md', cliReference(buildProgram())],
  ['markers.md', markerReference()],
]) {
  const out = fileURLToPath(new URL(`../docs/reference/${name}`, import.meta.url));
  writeFileSync(out, text);
  console.log(`wrote ${out}`);
}
const apiDir = fileURLToPath(new URL('../docs/reference/api/', import.meta.url));
await writeApiReference(apiDir);
console.log(`wrote ${apiDir}`);
