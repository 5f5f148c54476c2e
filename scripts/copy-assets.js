#!/usr/bin/env node
// Build step: copies the CLI's data files under src/ (*.json, read at run time beside their modules) into dist/. The
// workspace packages under src/ (runtime, envtest) build into their own dist/ and are skipped.
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const workspaces = ['runtime/', 'envtest/'];
const assets = readdirSync(join(root, 'src'), { recursive: true })
  .map(String)
  .filter((file) => file.endsWith('.json') && !workspaces.some((w) => file.startsWith(w)));
for (const file of assets) {
  mkdirSync(dirname(join(root, 'dist', file)), { recursive: true });
  copyFileSync(join(root, 'src', file), join(root, 'dist', file));
}
console.log(`copied ${assets.length} data file(s) into ${join(root, 'dist')}`);
