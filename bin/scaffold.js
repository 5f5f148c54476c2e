#!/usr/bin/env node
// Thin launcher: all logic lives in dist/cli, compiled from src/cli.
import { main } from '../dist/cli/index.js';

main(process.argv).then(
  (code) => { process.exitCode = code; },
  (err) => { console.error(err instanceof Error ? (err.stack ?? err.message) : String(err)); process.exitCode = 1; },
);
