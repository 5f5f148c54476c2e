/**
 * How a download shows its progress: on a terminal, one redrawn bar with bytes, rate and ETA; elsewhere
 * (CI logs, piped output), a line at every 10%. The clock is injected so tests can drive it.
 */
import type { DownloadProgress } from './download.js';

export interface ProgressOutput {
  /** A complete line of text (no newline). */
  line(text: string): void;
  /** Where to redraw a bar in place; absent when not on a terminal. */
  terminal?: { write(text: string): unknown; columns?: number };
}

export interface ProgressReporter {
  update(p: DownloadProgress): void;
  /** Ends the bar (a final draw and a newline); call on success or failure. */
  finish(): void;
}

const REDRAW_MS = 100;

/** A reporter for the download of `name` (an archive name). */
export function downloadReporter(name: string, out: ProgressOutput, now: () => number = Date.now): ProgressReporter {
  const started = now();
  let last: DownloadProgress = { received: 0, total: undefined };
  let lastDraw = -Infinity;
  let drawn = false;
  let lastDecile = 0;
  const draw = () => {
    drawn = true;
    lastDraw = now();
    out.terminal!.write(`\r${formatBar(name, last, (now() - started) / 1000, out.terminal!.columns ?? 80)}\x1b[K`);
  };
  return {
    update(p) {
      last = p;
      if (out.terminal) {
        if (now() - lastDraw >= REDRAW_MS || (p.total !== undefined && p.received >= p.total)) draw();
        return;
      }
      if (p.total === undefined || p.total === 0) return;
      const decile = Math.min(10, Math.floor((p.received / p.total) * 10));
      if (decile > lastDecile) {
        lastDecile = decile;
        out.line(`${name}: ${formatStatus(p, (now() - started) / 1000)}`);
      }
    },
    finish() {
      if (!out.terminal) return;
      if (drawn || last.received > 0) draw();
      out.terminal.write('\n');
    },
  };
}

/** "45% 34.2 MiB / 75.9 MiB, 12.3 MiB/s, ETA 3s" (without a total: "34.2 MiB, 12.3 MiB/s"). */
export function formatStatus(p: DownloadProgress, seconds: number): string {
  const rate = seconds > 0 ? p.received / seconds : 0;
  const speed = `${formatBytes(rate)}/s`;
  if (p.total === undefined || p.total === 0) return `${formatBytes(p.received)}, ${speed}`;
  const pct = Math.floor((p.received / p.total) * 100);
  const eta = rate > 0 ? `ETA ${formatDuration((p.total - p.received) / rate)}` : 'ETA --';
  return `${pct}% ${formatBytes(p.received)} / ${formatBytes(p.total)}, ${speed}, ${eta}`;
}

/** "name [#########.........] 45% 34.2 MiB / 75.9 MiB, 12.3 MiB/s, ETA 3s", fitted to `columns`. */
export function formatBar(name: string, p: DownloadProgress, seconds: number, columns: number): string {
  const status = formatStatus(p, seconds);
  const room = columns - name.length - status.length - 5;
  if (p.total === undefined || p.total === 0 || room < 10)
    return `${name} ${status}`.slice(0, Math.max(0, columns - 1));
  const width = Math.min(30, room);
  const filled = Math.min(width, Math.floor((p.received / p.total) * width));
  return `${name} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${status}`;
}

/** Binary units: "512 B", "1.5 KiB", "75.9 MiB". */
export function formatBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB'];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return i === 0 ? `${Math.round(v)} B` : `${v.toFixed(1)} ${units[i]}`;
}

/** "3s", "1m05s". */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.ceil(seconds));
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
}
