import { constants, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import v8 from 'node:v8';
import { HeapLimitError } from '../errors.js';

/** The heap's size and its limit, in bytes (v8.getHeapStatistics()'s used_heap_size and heap_size_limit). */
export interface HeapUse {
  used: number;
  limit: number;
}

/** Options of watchHeap. */
export interface HeapGuardOptions {
  /** The share of the old generation's limit that, still in use after a full collection under pressure, stops the manager. */
  fraction: number;
  /** What the caches hold, for the message: '61,234 objects cached (ConfigMap v1 61,234)'. */
  describe: () => string;
  /** Told once, with the error the manager stops with. */
  onExceeded: (err: HeapLimitError) => void;
  /** Default v8.getHeapStatistics(). */
  heapUse?: () => HeapUse;
}

const MiB = 1024 * 1024;

/**
 * Watches the heap after full garbage collections. V8 aborts the process ("Ineffective mark-compacts near heap limit")
 * once the old generation stays at 80% of its limit through four full collections in a row that leave the program
 * little time to run, and with a fatal error and no word of what to change. When, under that kind of pressure (a
 * full collection within a second of the one before, the collector taking a large share of the time since:
 * gcPressure), `fraction` of the limit is still in use after one, onExceeded hears once, with a one-line
 * HeapLimitError that names the limit to raise and the size reached. A heap that is merely full but quiet, or full
 * and still collected cheaply (a first pass over 100,000 objects holds its work queue's requests beside the cache for
 * a few seconds), is left alone. Returns the check (for tests) and the function that stops watching.
 */
export function watchHeap(opts: HeapGuardOptions): { check: () => void; stop: () => void } {
  const heapUse = opts.heapUse ?? oldGenerationUse();
  let fired = false;
  const check = (): void => {
    if (fired) return;
    const { used, limit } = heapUse();
    if (used < opts.fraction * limit) return;
    fired = true;
    opts.onExceeded(
      new HeapLimitError(
        `the heap is full: ${(used / MiB).toFixed(0)} MiB of its ${(limit / MiB).toFixed(0)} MiB limit still in use after a full garbage collection, with ${opts.describe()}; raise the memory limit of the manager's container (the scaffolded manifest gives the heap 70% of it, with --max-old-space-size-percentage=70), or cache less (cache.byObject selectors, metadata-only watches, or sharding across replicas)`,
      ),
    );
  };
  const underPressure = gcPressure();
  const observer = new PerformanceObserver((list) => {
    let pressed = false;
    for (const entry of list.getEntries()) {
      const detail = (entry as PerformanceEntry & { detail?: { kind?: number } }).detail;
      if (detail?.kind !== constants.NODE_PERFORMANCE_GC_MAJOR) continue;
      if (underPressure(entry.startTime, entry.duration)) pressed = true;
    }
    if (pressed) check();
  });
  observer.observe({ entryTypes: ['gc'] });
  return { check, stop: () => observer.disconnect() };
}

/**
 * Told of each full garbage collection (when it started and how long it paused the program, in ms), says whether it
 * came under pressure: within PRESSURE_WINDOW_MS of the one before, and pausing the program for at least MIN_GC_SHARE
 * of the time since that one ended. That is V8's own measure of an ineffective collection (it gives up once a full
 * collection takes more than 60% of that time, four in a row), but for the marking steps before the pause, which this
 * does not see: so it asks for less. Young-generation collections count as the program's time, as V8 counts them.
 */
export function gcPressure(): (start: number, duration: number) => boolean {
  let lastStart: number | undefined;
  let lastEnd = 0;
  return (start, duration) => {
    const end = start + duration;
    const pressed =
      lastStart !== undefined && start - lastStart <= PRESSURE_WINDOW_MS && duration >= MIN_GC_SHARE * (end - lastEnd);
    lastStart = start;
    lastEnd = end;
    return pressed;
  };
}

// Two full collections this close together, with the collector taking this share of the time between them, mean the
// heap is under pressure, not merely full or busy.
const PRESSURE_WINDOW_MS = 1000;
const MIN_GC_SHARE = 0.3;

/**
 * What the old generation holds against its limit: V8 aborts when the old generation reaches
 * --max-old-space-size, while heap_size_limit also counts the young generation (three semi-spaces), which would put
 * the mark out of reach.
 */
function oldGenerationUse(): () => HeapUse {
  // The flags do not change while the process runs: read once (a pass at 25,000 objects has dozens of full GCs).
  let limit: number | undefined;
  return () => {
    const stats = v8.getHeapStatistics();
    const young = v8
      .getHeapSpaceStatistics()
      .filter((s) => s.space_name === 'new_space' || s.space_name === 'new_large_object_space')
      .reduce((n, s) => n + s.space_used_size, 0);
    if (limit === undefined) {
      const old = flagMiB('max-old-space-size');
      const semi = flagMiB('max-semi-space-size') ?? DEFAULT_SEMI_SPACE_MIB;
      limit = old !== undefined ? old * MiB : stats.heap_size_limit - 3 * semi * MiB;
    }
    return { used: stats.used_heap_size - young, limit };
  };
}

// V8's largest semi-space on 64-bit machines when no flag sets it.
const DEFAULT_SEMI_SPACE_MIB = 16;

/** A V8 size flag (MiB) as the process was started with it, on its command line or in NODE_OPTIONS; the last wins. */
function flagMiB(name: string): number | undefined {
  const words = [...(process.env.NODE_OPTIONS ?? '').split(/\s+/), ...process.execArgv];
  let value: number | undefined;
  const pattern = new RegExp(`^--${name.replace(/-/g, '[-_]')}=(\\d+)$`);
  for (const w of words) {
    const m = pattern.exec(w);
    if (m) value = Number(m[1]);
  }
  return value;
}
