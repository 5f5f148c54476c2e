#!/usr/bin/env node
// Writes docs/reference/cli.md from the built CLI's commander definitions (src/cli/reference.ts).
// Usage: npm run docs:cli
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const { buildProgram } = await import(new URL('../dist/cli/index.js', import.meta.url).href);
const { cliReference } = await import(new URL('../dist/cli/reference.js', import.meta.url).href);
const out = fileURLToPath(new URL('../docs/reference/cli.md', import.meta.url));
mkdirSync(fileURLToPath(new URL('../docs/reference/', import.meta.url)), { recursive: true });
writeFileSync(out, cliReference(buildProgram()));
console.log(`wrote ${out}`);
