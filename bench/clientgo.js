// Builds the client-go baseline program (bench/clientgo, Go modules from the module proxy) into bench/out/ once.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('./clientgo/', import.meta.url));
const out = fileURLToPath(new URL('./out/clientgo', import.meta.url));

/** The path of the built client-go program, or undefined (with a note) when no Go toolchain is available. */
export function clientGoBinary() {
  if (existsSync(out)) return out;
  if (spawnSync('go', ['version']).status !== 0) {
    console.log('  (no Go toolchain: skipping the client-go baseline)');
    return undefined;
  }
  mkdirSync(fileURLToPath(new URL('./out/', import.meta.url)), { recursive: true });
  execFileSync('go', ['build', '-o', out, '.'], { cwd: dir, stdio: 'inherit' });
  return out;
}

/** Runs the client-go program and parses its one-line JSON answer. */
export function runClientGo(args) {
  const bin = clientGoBinary();
  if (!bin) return undefined;
  return JSON.parse(execFileSync(bin, args, { encoding: 'utf8' }).trim());
}
