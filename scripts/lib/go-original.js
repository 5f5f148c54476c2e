// Public Go operators, the originals of the ports in examples/: built once from the Go module proxy into
// ~/.cache/kubescaffold/go-originals/<module>@<version>-<go version>/. Plain JavaScript, because the equivalence tests
// (test/support/go-original.ts) and the benchmarks beside the originals (bench/reloader.js) both build them.
import { spawn } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * stakater/Reloader v1.4.22, the original of examples/reloader. Its go.mod pins github.com/openshift/api at a
 * pseudo-version the Go module proxy refuses (403); the version its own github.com/openshift/client-go requires is
 * served and builds.
 */
export const reloaderOriginal = {
  module: 'github.com/stakater/Reloader',
  version: 'v1.4.22',
  binary: 'reloader',
  replaces: [
    {
      from: 'github.com/openshift/api@v0.0.0-20260402111718-ad9eb11110b6',
      to: 'github.com/openshift/api@v0.0.0-20260326111139-30c2ef7a272e',
      why: 'the proxy refuses the pinned pseudo-version; this is the one openshift/client-go requires',
    },
  ],
};

/**
 * cert-manager/trust-manager v0.25.0, the original of examples/trust-manager: the Bundle controller and its validating
 * webhook. Its go.mod names only versions the proxy serves; the main package is cmd/trust-manager.
 */
export const trustManagerOriginal = {
  module: 'github.com/cert-manager/trust-manager',
  version: 'v0.25.0',
  binary: 'trust-manager',
  mainPackage: 'cmd/trust-manager',
  replaces: [],
};

/** The environment of the go commands: no surrounding go.work, modules from the proxy. */
const goEnv = () => ({ ...process.env, GOWORK: 'off', GOFLAGS: '-mod=mod' });

/** Runs go with `args` in `cwd`; resolves with its output, rejects with it when go fails or runs out of time. */
function go(cwd, args, { env = goEnv(), timeoutMs }) {
  return new Promise((resolve, reject) => {
    const child = spawn('go', args, { cwd, env, timeout: timeoutMs });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk) => (output += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (status, signal) =>
      status === 0
        ? resolve(output)
        : reject(
            new Error(`go ${args.join(' ')} failed in ${cwd} (${signal ?? `exit ${status}`}):\n${output.slice(-4000)}`),
          ),
    );
  });
}

/** The Go toolchain's version (`go1.26.8`); rejects when Go is not installed. */
export async function goVersion() {
  const version = (await go(process.cwd(), ['env', 'GOVERSION'], { timeoutMs: 60_000 }).catch(() => '')).trim();
  if (!version) throw new Error('Go is not installed (go env GOVERSION failed)');
  return version;
}

function makeWritable(path) {
  const stat = statSync(path);
  chmodSync(path, stat.mode | 0o200);
  if (stat.isDirectory()) for (const entry of readdirSync(path)) makeWritable(join(path, entry));
}

/**
 * The path of the original's binary, built when the cache has none: the module's source from the proxy (`go mod
 * download`), copied to a scratch folder with the replaces added, built with CGO off. Rejects saying why it cannot.
 * `log` gets a line when a build starts (it takes minutes).
 */
export async function buildGoOriginal(spec, { timeoutMs = 900_000, log = () => {} } = {}) {
  const version = await goVersion();
  const dir = join(homedir(), '.cache', 'kubescaffold', 'go-originals', `${spec.module}@${spec.version}-${version}`);
  const binary = join(dir, spec.binary);
  if (existsSync(binary)) return binary;
  log(`building ${spec.module}@${spec.version} with ${version} into ${dir} ...`);
  const work = mkdtempSync(join(tmpdir(), 'ks-go-original-'));
  try {
    // go mod download needs a module to run in, and must not pick up one around the checkout.
    writeFileSync(join(work, 'go.mod'), 'module example.com/go-original-fetch\n\ngo 1.24\n');
    const download = JSON.parse(
      await go(work, ['mod', 'download', '-json', `${spec.module}@${spec.version}`], { timeoutMs }),
    );
    if (!download.Dir) throw new Error(`go mod download ${spec.module}@${spec.version}: ${download.Error ?? 'no Dir'}`);
    const src = join(work, 'src');
    cpSync(download.Dir, src, { recursive: true });
    // The module cache is read-only; the copy's go.mod and go.sum are edited, and the copy is removed after.
    makeWritable(src);
    for (const r of spec.replaces ?? []) await go(src, ['mod', 'edit', `-replace=${r.from}=${r.to}`], { timeoutMs });
    const built = join(work, spec.binary);
    await go(src, ['build', '-trimpath', '-o', built, `./${spec.mainPackage ?? '.'}`], {
      env: { ...goEnv(), CGO_ENABLED: '0' },
      timeoutMs,
    });
    mkdirSync(dir, { recursive: true });
    renameSync(built, binary);
    return binary;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
