import { describe, expect, it } from 'vitest';
import {
  downloadReporter,
  formatBar,
  formatBytes,
  formatDuration,
  formatStatus,
} from '../../src/envtest/binaries/progress.js';

const MiB = 1024 * 1024;

/** A clock the test moves by hand. */
function manualClock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

describe('download progress', () => {
  it('formats bytes, rate and ETA', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(75.9 * MiB)).toBe('75.9 MiB');
    expect(formatDuration(2.1)).toBe('3s');
    expect(formatDuration(65)).toBe('1m05s');
    expect(formatStatus({ received: 20 * MiB, total: 80 * MiB }, 2)).toBe(
      '25% 20.0 MiB / 80.0 MiB, 10.0 MiB/s, ETA 6s',
    );
    expect(formatStatus({ received: 20 * MiB, total: undefined }, 2)).toBe('20.0 MiB, 10.0 MiB/s');
  });

  it('draws a bar that fits the terminal', () => {
    const bar = formatBar('envtest.tar.gz', { received: 40 * MiB, total: 80 * MiB }, 4, 100);
    expect(bar).toBe(`envtest.tar.gz [${'#'.repeat(15)}${'.'.repeat(15)}] 50% 40.0 MiB / 80.0 MiB, 10.0 MiB/s, ETA 4s`);
    expect(formatBar('envtest.tar.gz', { received: 40 * MiB, total: 80 * MiB }, 4, 60)).not.toContain('[');
  });

  it('prints a line per 10% when not on a terminal', () => {
    const clock = manualClock();
    const lines: string[] = [];
    const r = downloadReporter('a.tar.gz', { line: (l) => lines.push(l) }, clock.now);
    for (let received = 4 * MiB; received <= 100 * MiB; received += 4 * MiB) {
      clock.advance(100);
      r.update({ received, total: 100 * MiB });
    }
    r.update({ received: 100 * MiB, total: 100 * MiB });
    r.finish();
    expect(lines.map((l) => /: (\d+)%/.exec(l)?.[1])).toEqual([
      '12',
      '20',
      '32',
      '40',
      '52',
      '60',
      '72',
      '80',
      '92',
      '100',
    ]);
    expect(lines[9]).toBe('a.tar.gz: 100% 100.0 MiB / 100.0 MiB, 40.0 MiB/s, ETA 0s');
  });

  it('redraws the bar in place at most every 100 ms on a terminal, and ends it with a newline', () => {
    const clock = manualClock();
    const writes: string[] = [];
    const lines: string[] = [];
    const r = downloadReporter(
      'a.tar.gz',
      { line: (l) => lines.push(l), terminal: { write: (t) => writes.push(t), columns: 120 } },
      clock.now,
    );
    r.update({ received: 1 * MiB, total: 10 * MiB });
    r.update({ received: 2 * MiB, total: 10 * MiB }); // same instant: not drawn
    clock.advance(100);
    r.update({ received: 3 * MiB, total: 10 * MiB });
    r.finish();
    expect(lines).toEqual([]);
    expect(writes).toHaveLength(4); // two draws, the final draw, the newline
    expect(writes.every((w, i) => (i < 3 ? w.startsWith('\ra.tar.gz [') && w.endsWith('\x1b[K') : w === '\n'))).toBe(
      true,
    );
    expect(writes[1]).toContain('30% 3.0 MiB / 10.0 MiB');
  });
});
