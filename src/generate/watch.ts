/**
 * `scaffold manifests --watch`: regenerates after source changes. Parsed files are kept between runs and only
 * changed files are re-read, so a one-file edit costs one parse plus schema assembly.
 *
 * chokidar does the watching: it keeps following a file that an editor saves by rename (vim, sed -i, most IDEs),
 * which a bare fs.watch loses, and it says when its watches are in place.
 */
import { basename, relative } from 'node:path';
import { watch } from 'chokidar';
import { CRDCache } from '../crd/crd.js';
import { isUserError } from '../errors.js';
import { isSourceFile, SourceProgram } from '../markers/program.js';
import { planManifests, type ManifestsOptions } from './manifests.js';
import { writeChanged } from './write.js';

/** The options of `scaffold manifests --watch`: those of a single run, plus how to stop and report. */
export interface WatchOptions extends ManifestsOptions {
  /** Stops watching when aborted; without it, runs until the process ends. */
  signal?: AbortSignal;
  /** Called after each run (for tests and tools); defaults to printing a line. */
  onRun?: (result: { written: string[]; error?: Error; ms: number }) => void;
  debounceMs?: number;
  /** Called once the watches are in place: an edit made after this is seen. */
  onReady?: () => void;
}

const ignored = /(^|\/)(node_modules|dist|\.git)(\/|$)/;

/**
 * Generates once, then again after every source change; resolves when `signal` aborts, rejects if the watcher fails.
 */
export function watchManifests(opts: WatchOptions): Promise<void> {
  const program = new SourceProgram(opts.root);
  const cache = new CRDCache(program);
  const known = new Map<string, string>();
  const report =
    opts.onRun ??
    (({ written, error, ms }) => {
      if (error) console.error(`${error.message}\n(waiting for changes)`);
      else
        console.log(
          `manifests: ${written.length === 0 ? 'up to date' : written.map((p) => relative(opts.root, p)).join(', ')} (${ms} ms)`,
        );
    });
  const run = (): void => {
    const start = performance.now();
    try {
      const written = writeChanged(opts.root, planManifests(opts, program, cache).files, known);
      report({ written, ms: Math.round(performance.now() - start) });
    } catch (err) {
      // diagnostics, a link out of the project, a file that is not UTF-8: the user fixes it and saves again
      if (!isUserError(err)) throw err;
      report({ written: [], error: err, ms: Math.round(performance.now() - start) });
    }
  };
  run();
  return new Promise((resolve, reject) => {
    const pending = new Set<string>();
    let timer: NodeJS.Timeout | undefined;
    const watcher = watch(opts.root, {
      ignoreInitial: true,
      // Without this chokidar drops a change that follows another within 50 ms (a save, then a format-on-save);
      // with it, every change is reported once the file has stopped changing.
      awaitWriteFinish: { stabilityThreshold: 20, pollInterval: 10 },
      // Directories are followed unless ignored; of files, only sources matter.
      ignored: (path, stats) => {
        const rel = relative(opts.root, path);
        return ignored.test(rel) || (stats?.isFile() === true && !isSourceFile(basename(path)));
      },
    });
    const changed = (path: string): void => {
      if (!isSourceFile(basename(path))) return;
      pending.add(path);
      clearTimeout(timer);
      timer = setTimeout(() => {
        for (const p of pending) program.invalidate(p);
        pending.clear();
        run();
      }, opts.debounceMs ?? 20);
    };
    watcher.on('add', changed).on('change', changed).on('unlink', changed);
    watcher.on('ready', () => opts.onReady?.());
    const stop = (): void => {
      clearTimeout(timer);
      void watcher.close().then(() => resolve(), reject);
    };
    watcher.on('error', (err) => {
      opts.signal?.removeEventListener('abort', stop);
      clearTimeout(timer);
      void watcher.close().finally(() => reject(err instanceof Error ? err : new Error(String(err))));
    });
    if (opts.signal?.aborted) stop();
    opts.signal?.addEventListener('abort', stop, { once: true });
  });
}
