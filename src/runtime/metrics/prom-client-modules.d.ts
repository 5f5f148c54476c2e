// Types for the prom-client modules prom.ts imports by path: prom-client types only its index.
declare module 'prom-client/lib/registry.js' {
  const Registry: typeof import('prom-client').Registry;
  export = Registry;
}
declare module 'prom-client/lib/counter.js' {
  const Counter: typeof import('prom-client').Counter;
  export = Counter;
}
declare module 'prom-client/lib/gauge.js' {
  const Gauge: typeof import('prom-client').Gauge;
  export = Gauge;
}
declare module 'prom-client/lib/histogram.js' {
  const Histogram: typeof import('prom-client').Histogram;
  export = Histogram;
}
declare module 'prom-client/lib/bucketGenerators.js' {
  const buckets: Pick<typeof import('prom-client'), 'exponentialBuckets' | 'linearBuckets'>;
  export = buckets;
}
