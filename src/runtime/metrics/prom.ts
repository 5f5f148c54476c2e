/**
 * prom-client's metric classes, loaded from its modules rather than its index. The index also loads prom-client's
 * default metrics, whose CPU collector pulls in @opentelemetry/api for exemplars: 8 MiB of RSS (10 on Node 22) in
 * an operator whose budget is 64, where the classes alone cost 0.4 MiB. Our own process metrics are in process.ts.
 * The version range in package.json is narrow because these paths are prom-client's layout, not its interface.
 */
import { createRequire } from 'node:module';
import type * as prom from 'prom-client';

const require = createRequire(import.meta.url);

export const Registry = require('prom-client/lib/registry') as typeof prom.Registry;
export const Counter = require('prom-client/lib/counter') as typeof prom.Counter;
export const Gauge = require('prom-client/lib/gauge') as typeof prom.Gauge;
export const Histogram = require('prom-client/lib/histogram') as typeof prom.Histogram;
export const { exponentialBuckets } = require('prom-client/lib/bucketGenerators') as Pick<typeof prom, 'exponentialBuckets'>;
export type Registry = prom.Registry;
