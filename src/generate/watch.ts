/**
 * `scaffold manifests --watch`: regenerates after source changes. Parsed files are kept between runs and only
 * changed files are re-read, so a one-file edit costs one parse plus schema assembly.
 */
import { watch } from 'node:fs';
import { relative } from 'node:path';
import { CRDCache } from '../crd/crd.js';
import { DiagnosticsError } from '../diagnostics.js';
import { isSourceFile, SourceProgram } from '../markers/program.js';
import { planManifests, type ManifestsOptions } from './manifests.js';
import { writeChanged } from './write.js';

export interface WatchOptions extends ManifestsOptions {
  /** Stops watching when aborted; without it, runs until the process ends. */
  signal?: AbortSignal;
  /** Called after each run (for tests and tools); defaults to printing a line. */
  onRun?: (result: { written: string[]; error?: Error; ms: number }) => void;
  debounceMs?: number;
}

const ignored = /(^|\/)(node_modules|dist|\.git)(\/|$)/;

export function watchManifests(opts: WatchOptions): Promise<void> {
  const program = new SourceProgram(opts.root);
  const cache = new CRDCache(program);
  const known = new Map<string, string>();
  const report =
    opts.onRun ??
    (({ written, error, ms }) => {
      if (error) console.error(`${error.message}\n(waiting for changes)`);
      else console.log(`manifests: ${written.length === 0 ? 'up to date' : written.map((p) => relative(opts.root, p)).join(', ')} (${ms} ms)`);
    });
  const run = (): void => {
    const start = performance.now();
    try {
      const written = writeChanged(planManifests(opts, program, cache).files, known);
      report({ written, ms: Math.round(performance.now() - start) });
    } catch (err) {
      if (!(err instanceof DiagnosticsError)) throw err;
      report({ written: [], error: err, ms: Math.round(performance.now() - start) });
    }
  };
  run();
  return new Promise((resolve) => {
    const pending = new Set<string>();
    let timer: NodeJS.Timeout | undefined;
    const watcher = watch(opts.root, { recursive: true }, (_event, name) => {
      if (!name) return;
      const rel = name.toString();
      if (ignored.test(rel) || !isSourceFile(rel.split('/').pop() ?? '')) return;
      pending.add(rel);
      clearTimeout(timer);
      timer = setTimeout(() => {
        for (const p of pending) program.invalidate(`${opts.root}/${p}`);
        pending.clear();
        run();
      }, opts.debounceMs ?? 20);
    });
    const stop = (): void => {
      clearTimeout(timer);
      watcher.close();
      resolve();
    };
    if (opts.signal?.aborted) stop();
    opts.signal?.addEventListener('abort', stop, { once: true });
  });
}
