#!/usr/bin/env node
// Build step: copies the data files under src/ (*.json, read at run time beside their modules) into dist/.
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const assets = readdirSync(join(root, 'src'), { recursive: true }).filter((file) => String(file).endsWith('.json'));
for (const file of assets) {
  mkdirSync(dirname(join(root, 'dist', String(file))), { recursive: true });
  copyFileSync(join(root, 'src', String(file)), join(root, 'dist', String(file)));
}
console.log(`copied ${assets.length} data file(s) into ${join(root, 'dist')}`);
