#!/usr/bin/env node
// Thin launcher: all logic lives in dist/cli, compiled from src/cli.
import module from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';

// Node 22.1+ keeps the compiled code of every module the CLI loads (the 9 MB TypeScript compiler above all) in a
// cache directory, so later runs skip compiling it (NODE_DISABLE_COMPILE_CACHE=1 turns it off). Node 20 has no
// such cache and compiles everything on every run.
module.enableCompileCache?.(
  join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'kubescaffold', 'compile-cache'),
);

// `scaffold --help | head`: a reader that stops early is not an error.
process.stdout.on('error', (err) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});

const { main } = await import('../dist/cli/index.js');
main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
    process.exitCode = 1;
  },
);
