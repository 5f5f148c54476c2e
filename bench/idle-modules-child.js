// The in-process half of bench/idle-modules.js's load stages: each stage's entry point imports some of the runtime (by
// package name, as a scaffolded cmd/main.ts does) and this file, and is bundled by the scaffolded hack/bundle.js; the
// bundle, run with the image's node flags, hands what it imported to reportIdle, which keeps it reachable, waits
// (IDLE_MODULES_MS), collects garbage, prints one JSON line of memory figures and exits. Its text, less `export`, is
// also run as a CommonJS script (node -e) for bare Node. Not a benchmark itself.
// It takes Node's built-ins through process.getBuiltinModule: an ESM import of node:fs would load fs/promises, streams
// and more (its lazy exports) into every stage, the bare one too.
const { readFileSync } = process.getBuiltinModule('node:fs');
const { getHeapCodeStatistics } = process.getBuiltinModule('node:v8');

const status = (field) => {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(readFileSync('/proc/self/status', 'utf8'));
  return m ? Number(m[1]) * 1024 : NaN;
};

/** Keeps `loaded` (module namespaces) alive, waits, then reports idle memory after a full GC on stdout. */
export async function reportIdle(loaded) {
  globalThis.__idleModulesKeep = loaded;
  const idleMs = Number(process.env.IDLE_MODULES_MS ?? 10_000);
  await new Promise((resolve) => setTimeout(resolve, idleMs));
  if (typeof globalThis.gc !== 'function') throw new Error('run with node --expose-gc');
  globalThis.gc();
  globalThis.gc();
  const m = process.memoryUsage();
  const code = getHeapCodeStatistics();
  process.stdout.write(
    `${JSON.stringify({
      type: 'idle',
      rssBytes: status('VmRSS'),
      anonBytes: status('RssAnon'),
      fileBytes: status('RssFile'),
      peakBytes: status('VmHWM'),
      heapBytes: m.heapUsed,
      heapTotalBytes: m.heapTotal,
      externalBytes: m.external,
      bytecodeBytes: code.bytecode_and_metadata_size,
      codeBytes: code.code_and_metadata_size,
      scriptSourceBytes: code.external_script_source_size,
      builtins: (process.moduleLoadList ?? []).filter((s) => s.startsWith('NativeModule ')).length,
    })}\n`,
  );
  process.exit(0);
}
