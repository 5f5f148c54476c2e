import { describe, expect, it } from 'vitest';
import { CounterFamily, GaugeFamily, HistogramFamily } from '../../../src/runtime/metrics/bound.js';
import { Counter, Gauge, Histogram, Registry } from '../../../src/runtime/metrics/prom.js';
import { workqueueMetricsProvider } from '../../../src/runtime/metrics/workqueue.js';
import { registry } from '../../../src/runtime/metrics/registry.js';
import { RateLimitingQueue } from '../../../src/runtime/workqueue/index.js';

describe('bound metric families', () => {
  it("serve the same exposition as prom-client's own metrics for the same updates", async () => {
    const ours = new Registry();
    const theirs = new Registry();
    const labelNames = ['controller', 'result'];
    const c1 = new CounterFamily({ name: 'x_total', help: 'Counts.', labelNames, registry: ours });
    const c2 = new Counter({ name: 'x_total', help: 'Counts.', labelNames, registers: [theirs] });
    const g1 = new GaugeFamily({ name: 'x_depth', help: 'Depth "quoted".', labelNames: ['name'], registry: ours });
    const g2 = new Gauge({ name: 'x_depth', help: 'Depth "quoted".', labelNames: ['name'], registers: [theirs] });
    const buckets = [0.005, 0.1, 1, 10];
    const h1 = new HistogramFamily({ name: 'x_seconds', help: 'Time.', labelNames: ['name'], buckets, registry: ours });
    const h2 = new Histogram({ name: 'x_seconds', help: 'Time.', labelNames: ['name'], buckets, registers: [theirs] });

    c1.bind('a', 'success').inc();
    c1.bind('a', 'success').inc(2);
    c2.labels('a', 'success').inc(3);
    g1.bind('q\\1"x').set(7);
    g1.bind('q\\1"x').dec(2);
    g2.labels('q\\1"x').set(5);
    for (const v of [0.001, 0.005, 0.05, 2, 99]) {
      h1.bind('q').observe(v);
      h2.labels('q').observe(v);
    }
    // Label order aside (le comes last, as client_golang writes it; prom-client writes it first), byte for byte.
    const sortLabels = (text: string): string =>
      text.replace(
        /\{([^}]*)\}/g,
        (_, inner: string) =>
          `{${inner
            .split(/,(?=\w+=")/)
            .sort()
            .join(',')}}`,
      );
    const ourText = await ours.metrics();
    expect(sortLabels(ourText)).toBe(sortLabels(await theirs.metrics()));
    expect(ourText).toContain('x_seconds_bucket{name="q",le="0.005"} 2');
  });

  it('serve a series at 0 from the moment it is bound, and bind the same child every time', async () => {
    const reg = new Registry();
    const c = new CounterFamily({ name: 'y_total', help: 'h', labelNames: ['name'], registry: reg });
    const child = c.bind('q');
    expect(c.bind('q')).toBe(child);
    expect(await reg.metrics()).toContain('y_total{name="q"} 0');
  });

  it('leave an optional label out of the exposition when it is not given, and drop the series of one label value', async () => {
    const reg = new Registry();
    const c = new CounterFamily({
      name: 'o_total',
      help: 'h',
      labelNames: ['controller'],
      optionalLabelNames: ['cluster'],
      registry: reg,
    });
    c.bind('x').inc();
    // '' is the same child as no value at all: a single-cluster controller's series, as before.
    expect(c.bind('x', '')).toBe(c.bind('x'));
    c.bind('x', 'east').inc(2);
    c.bind('x', 'west').inc(3);
    const text = await reg.metrics();
    expect(text).toContain('o_total{controller="x"} 1');
    expect(text).toContain('o_total{controller="x",cluster="east"} 2');
    c.removeWhere('cluster', 'east');
    const after = await reg.metrics();
    expect(after).not.toContain('cluster="east"');
    expect(after).toContain('o_total{controller="x",cluster="west"} 3');
    expect(() => c.bind('x', 'a', 'b')).toThrow('o_total: 3 label values for 2 labels (controller, cluster)');
  });

  it('refuse a wrong number of label values and a counter going down', () => {
    const reg = new Registry();
    const c = new CounterFamily({ name: 'z_total', help: 'h', labelNames: ['a', 'b'], registry: reg });
    expect(() => c.bind('only-one')).toThrow('z_total: 1 label values for 2 labels (a, b)');
    expect(() => c.bind('1', '2').inc(-1)).toThrow('a counter cannot go down');
  });
});

describe('workqueue metrics', () => {
  it("serve every series of a queue at 0 as soon as it exists, with controller-runtime's labels", async () => {
    const q = new RateLimitingQueue<string>({ name: 'fresh-queue', metricsProvider: workqueueMetricsProvider });
    try {
      const text = await registry.metrics();
      for (const series of [
        'workqueue_depth{name="fresh-queue",controller="fresh-queue",priority=""} 0',
        'workqueue_adds_total{name="fresh-queue",controller="fresh-queue"} 0',
        'workqueue_retries_total{name="fresh-queue",controller="fresh-queue"} 0',
        'workqueue_queue_duration_seconds_count{name="fresh-queue",controller="fresh-queue"} 0',
        'workqueue_work_duration_seconds_count{name="fresh-queue",controller="fresh-queue"} 0',
        'workqueue_unfinished_work_seconds{name="fresh-queue",controller="fresh-queue"} 0',
        'workqueue_longest_running_processor_seconds{name="fresh-queue",controller="fresh-queue"} 0',
      ]) {
        expect(text).toContain(series);
      }
    } finally {
      q.shutDown();
    }
  });
});
