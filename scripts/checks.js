#!/usr/bin/env node
// `npm test`'s checks before the tests, side by side on the machine's cores: the type checks of src/ and test/
// (`npm run typecheck`) and the lint (`npm run lint`). Each one's output is printed whole when it ends, so the two
// do not interleave; the exit is non-zero if either fails. Run after `npm run build` (the test type check reads the
// built workspaces' declarations).
//
// Usage: node scripts/checks.js
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** Runs `npm run <script>` and prints its output when it ends; resolves to whether it passed. */
function runScript(script) {
  const child = spawn(npm, ['run', script], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  const output = [];
  child.stdout.on('data', (chunk) => output.push(chunk));
  child.stderr.on('data', (chunk) => output.push(chunk));
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      process.stdout.write(Buffer.concat(output));
      if (code !== 0) console.error(`npm run ${script} failed (exit ${code ?? signal})`);
      resolve(code === 0);
    });
  });
}

const passed = await Promise.all(['typecheck', 'lint'].map(runScript));
process.exit(passed.every(Boolean) ? 0 : 1);
