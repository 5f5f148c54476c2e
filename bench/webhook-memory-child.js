// Our webhook server as a scaffolded manager runs it, for bench/webhook-memory.js: a defaulting webhook for ConfigMaps
// (it sets one label) on a generated certificate, with the body budget given (BUDGET bytes; 'default' leaves the
// server's own, derived from the heap limit; 0 turns it off).
//   node [the manager's Node flags] bench/webhook-memory-child.js <budget>
// Prints {"type":"ready","port"} once serving; on "stop" prints {"type":"stopped","hwmBytes"} (the kernel's VmHWM) and
// exits.
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { importRuntime } from './runtime-lib.js';

const [budget = 'default'] = process.argv.slice(2);
const rt = await importRuntime('webhook', 'rest');
rt.configureLog({ level: 'error' });
const server = new rt.WebhookServer({
  host: '127.0.0.1',
  port: 0,
  ...(budget === 'default' ? {} : { maxInFlightBodyBytes: Number(budget) }),
});
const defaulter = {
  async default(cm) {
    cm.metadata = { ...cm.metadata, labels: { ...cm.metadata?.labels, defaulted: 'true' } };
  },
};
server.register('/mutate--v1-configmap', new rt.AdmissionWebhook(rt.defaultingHandler(rt.ConfigMaps, defaulter)));
const ac = new AbortController();
const done = server.start(ac.signal);
await server.ready();
process.stdout.write(`${JSON.stringify({ type: 'ready', port: server.address().port })}\n`);
for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() !== 'stop') continue;
  ac.abort();
  await done;
  const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  process.stdout.write(`${JSON.stringify({ type: 'stopped', hwmBytes: Number(hwm?.[1] ?? 0) * 1024 })}\n`);
  process.exit(0);
}
