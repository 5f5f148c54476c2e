import { describe, expect, it } from 'vitest';
import { registerProcessCollector } from '../../../src/runtime/metrics/process.js';
import { Registry } from '../../../src/runtime/metrics/prom.js';

/** The value of an unlabelled series in a text exposition. */
function value(text: string, name: string): number {
  const m = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  if (!m) throw new Error(`no series ${name} in:\n${text}`);
  return Number(m[1]);
}

describe('registerProcessCollector', () => {
  it("serves Prometheus' process_* series and Node's heap figures, read at scrape time", async () => {
    const registry = new Registry();
    registerProcessCollector(registry);
    const first = await registry.metrics();
    for (const [name, type] of [
      ['process_cpu_seconds_total', 'counter'],
      ['process_cpu_user_seconds_total', 'counter'],
      ['process_cpu_system_seconds_total', 'counter'],
      ['process_start_time_seconds', 'gauge'],
      ['process_resident_memory_bytes', 'gauge'],
      ['process_virtual_memory_bytes', 'gauge'],
      ['process_virtual_memory_max_bytes', 'gauge'],
      ['process_open_fds', 'gauge'],
      ['process_max_fds', 'gauge'],
      ['process_network_receive_bytes_total', 'counter'],
      ['process_network_transmit_bytes_total', 'counter'],
      ['nodejs_heap_size_total_bytes', 'gauge'],
      ['nodejs_heap_size_used_bytes', 'gauge'],
      ['nodejs_external_memory_bytes', 'gauge'],
    ]) {
      expect(first).toContain(`# TYPE ${name} ${type}\n`);
    }
    const now = Date.now() / 1000;
    expect(value(first, 'process_start_time_seconds')).toBeGreaterThan(now - process.uptime() - 2);
    expect(value(first, 'process_start_time_seconds')).toBeLessThanOrEqual(now);
    expect(value(first, 'process_resident_memory_bytes')).toBeGreaterThan(10 * 2 ** 20);
    expect(value(first, 'process_virtual_memory_bytes')).toBeGreaterThan(value(first, 'process_resident_memory_bytes'));
    expect(value(first, 'process_open_fds')).toBeGreaterThan(2);
    expect(value(first, 'process_max_fds')).not.toBe(0);
    expect(first).toContain(`nodejs_version_info{version="${process.version}",`);

    // CPU spent between scrapes shows up in the counter, which never goes down.
    const cpuBefore = value(first, 'process_cpu_seconds_total');
    const until = process.cpuUsage().user + 20_000;
    while (process.cpuUsage().user < until) Math.sqrt(Math.random());
    const second = await registry.metrics();
    expect(value(second, 'process_cpu_seconds_total')).toBeGreaterThanOrEqual(cpuBefore + 0.02);
    expect(value(second, 'process_cpu_seconds_total')).toBeCloseTo(
      value(second, 'process_cpu_user_seconds_total') + value(second, 'process_cpu_system_seconds_total'),
      6,
    );
  });
});
