/**
 * prom-client's metric classes, imported from its modules rather than its index. The index also loads prom-client's
 * default metrics, whose CPU collector pulls in @opentelemetry/api for exemplars: 8 MiB of RSS (10 on Node 22) in
 * an operator whose budget is 64, where the classes alone cost 0.4 MiB. Our own process metrics are in process.ts.
 * The version range in package.json is narrow because these paths are prom-client's layout, not its interface.
 * Static imports, so that a bundler sees them (prom-client-modules.d.ts types them).
 */
import type * as prom from 'prom-client';
import bucketGenerators from 'prom-client/lib/bucketGenerators.js';
import counter from 'prom-client/lib/counter.js';
import gauge from 'prom-client/lib/gauge.js';
import histogram from 'prom-client/lib/histogram.js';
import registry from 'prom-client/lib/registry.js';

export const Registry: typeof prom.Registry = registry;
export const Counter: typeof prom.Counter = counter;
export const Gauge: typeof prom.Gauge = gauge;
export const Histogram: typeof prom.Histogram = histogram;
export const exponentialBuckets: typeof prom.exponentialBuckets = bucketGenerators.exponentialBuckets;
export type Registry = prom.Registry;
