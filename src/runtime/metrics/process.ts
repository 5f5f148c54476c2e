/**
 * The process_* series Prometheus' process collector serves for controller-runtime (CPU, memory, file descriptors,
 * start time), plus Node's heap figures, read when scraped. prom-client's collectDefaultMetrics would serve these
 * too, but loading it costs 6–8 MiB of RSS (event-loop and GC histograms, @opentelemetry/api).
 */
import { Counter, Gauge, type Registry } from './prom.js';
import { fs } from '../internal/builtins.js';

const { readdirSync, readFileSync } = fs;

// When the process began, in seconds since the epoch (fractional, as Go's collector reports it).
const startTimeSeconds = performance.timeOrigin / 1000;

// Reads a Linux /proc file; other systems (and a /proc we may not read) give undefined, and the series reports 0.
function procFile(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function virtualMemoryBytes(): number {
  const m = /^VmSize:\s+(\d+) kB$/m.exec(procFile('/proc/self/status') ?? '');
  return m ? Number(m[1]) * 1024 : 0;
}

/** A limit from /proc/self/limits (soft value); -1 when unlimited, as Go's collector reports it. */
function limit(name: string): number {
  const line = (procFile('/proc/self/limits') ?? '').split('\n').find((l) => l.startsWith(name));
  const soft = line?.slice(name.length).trim().split(/\s+/)[0];
  if (soft === undefined) return 0;
  return soft === 'unlimited' ? -1 : Number(soft);
}

/** Bytes received and sent over every interface of the process's network namespace (/proc/self/net/dev). */
function networkBytes(): { receive: number; transmit: number } {
  let receive = 0;
  let transmit = 0;
  for (const line of (procFile('/proc/self/net/dev') ?? '').split('\n').slice(2)) {
    const fields = line.split(':')[1]?.trim().split(/\s+/);
    if (!fields || fields.length < 9) continue;
    receive += Number(fields[0]);
    transmit += Number(fields[8]);
  }
  return { receive, transmit };
}

function openFds(): number {
  try {
    return readdirSync('/proc/self/fd').length;
  } catch {
    return 0;
  }
}

/** Registers the process and Node metrics on `registry`. */
export function registerProcessCollector(registry: Registry): void {
  const registers = [registry];
  const cpu = { user: 0, system: 0 };
  const seconds = (micros: number): number => micros / 1e6;
  const cpuUser = new Counter({
    name: 'process_cpu_user_seconds_total',
    help: 'Total user CPU time spent in seconds.',
    registers,
  });
  const cpuSystem = new Counter({
    name: 'process_cpu_system_seconds_total',
    help: 'Total system CPU time spent in seconds.',
    registers,
  });
  new Counter({
    name: 'process_cpu_seconds_total',
    help: 'Total user and system CPU time spent in seconds.',
    registers,
    // Counters only go up: each scrape adds what was used since the last.
    collect() {
      const now = process.cpuUsage();
      const du = now.user - cpu.user;
      const ds = now.system - cpu.system;
      cpu.user = now.user;
      cpu.system = now.system;
      cpuUser.inc(seconds(du));
      cpuSystem.inc(seconds(ds));
      this.inc(seconds(du + ds));
    },
  });
  const gauge = (name: string, help: string, read: () => number): void => {
    new Gauge({
      name,
      help,
      registers,
      collect() {
        this.set(read());
      },
    });
  };
  // Counters read whole at each scrape: the kernel keeps the totals, so a scrape sets the counter to them.
  const netCounter = (name: string, help: string, read: () => number): void => {
    new Counter({
      name,
      help,
      registers,
      collect() {
        this.reset();
        this.inc(read());
      },
    });
  };
  netCounter(
    'process_network_receive_bytes_total',
    'Number of bytes received by the process over the network.',
    () => networkBytes().receive,
  );
  netCounter(
    'process_network_transmit_bytes_total',
    'Number of bytes sent by the process over the network.',
    () => networkBytes().transmit,
  );
  gauge('process_start_time_seconds', 'Start time of the process since unix epoch in seconds.', () => startTimeSeconds);
  gauge('process_resident_memory_bytes', 'Resident memory size in bytes.', () => process.memoryUsage.rss());
  gauge('process_virtual_memory_bytes', 'Virtual memory size in bytes.', virtualMemoryBytes);
  gauge('process_virtual_memory_max_bytes', 'Maximum amount of virtual memory available in bytes.', () =>
    limit('Max address space'),
  );
  gauge('process_open_fds', 'Number of open file descriptors.', openFds);
  gauge('process_max_fds', 'Maximum number of open file descriptors.', () => limit('Max open files'));
  gauge(
    'nodejs_heap_size_total_bytes',
    'Process heap size from Node.js in bytes.',
    () => process.memoryUsage().heapTotal,
  );
  gauge(
    'nodejs_heap_size_used_bytes',
    'Process heap size used from Node.js in bytes.',
    () => process.memoryUsage().heapUsed,
  );
  gauge('nodejs_external_memory_bytes', 'Node.js external memory size in bytes.', () => process.memoryUsage().external);
  const [major, minor, patch] = process.versions.node.split('.');
  const version = new Gauge({
    name: 'nodejs_version_info',
    help: 'Node.js version info.',
    labelNames: ['version', 'major', 'minor', 'patch'],
    registers,
  });
  version.set({ version: process.version, major, minor, patch }, 1);
}
