/**
 * Metric families whose children are bound to their label values once and then updated with plain arithmetic, as
 * client_golang's WithLabelValues children are. prom-client hashes the label object again on every inc() and
 * observe(), which made a queue with controller-runtime's metrics run at a third of client-go's speed; these cost an
 * addition. They register in prom-client's Registry (which only asks a metric for get()), so /metrics is one
 * exposition, and a child exists, at 0, from the moment it is bound: rate() works from the first scrape, as in
 * controller-runtime.
 */
import type { Registry } from './prom.js';
import { ConfigurationError } from '../errors.js';

type Labels = Record<string, string>;

interface Sample {
  value: number;
  labels: Record<string, string | number>;
  metricName?: string;
}

/** What prom-client's Registry reads of a metric. */
interface RegistryMetric {
  readonly name: string;
  readonly help: string;
  readonly type: 'counter' | 'gauge' | 'histogram';
  readonly aggregator: 'sum';
  get(): Promise<{ name: string; help: string; type: string; values: Sample[]; aggregator: 'sum' }>;
}

/** What a family is made from. */
export interface FamilyOptions {
  name: string;
  help: string;
  labelNames: readonly string[];
  /**
   * Labels after labelNames that bind() may leave out: a value left out, or given as '', is no label at all in the
   * exposition (a multi-cluster controller's `cluster`, which a single-cluster one does not have).
   */
  optionalLabelNames?: readonly string[];
  registry: Registry;
}

abstract class Family<C> implements RegistryMetric {
  readonly name: string;
  readonly help: string;
  abstract readonly type: 'counter' | 'gauge' | 'histogram';
  readonly aggregator = 'sum' as const;
  private readonly labelNames: readonly string[];
  private readonly required: number;
  protected readonly children = new Map<string, { labels: Labels; child: C }>();

  constructor(opts: FamilyOptions) {
    this.name = opts.name;
    this.help = opts.help;
    this.labelNames = [...opts.labelNames, ...(opts.optionalLabelNames ?? [])];
    this.required = opts.labelNames.length;
    opts.registry.registerMetric(this as never);
  }

  /**
   * The child for these label values, in labelNames order (then the optional labels'); the same object on every call.
   */
  bind(...values: string[]): C {
    if (values.length < this.required || values.length > this.labelNames.length) {
      throw new ConfigurationError(
        `${this.name}: ${values.length} label values for ${this.labelNames.length} labels (${this.labelNames.join(', ')})`,
      );
    }
    const key = this.keyOf(values);
    let entry = this.children.get(key);
    if (!entry) {
      const labels: Labels = {};
      this.labelNames.forEach((n, i) => {
        const v = values[i] ?? '';
        if (i < this.required || v !== '') labels[n] = v;
      });
      entry = { labels, child: this.newChild() };
      this.children.set(key, entry);
    }
    return entry.child;
  }

  /**
   * Drops every child whose label `name` has `value`, e.g. the series of a cluster a multi-cluster manager disengaged,
   * so that the family does not keep one per cluster ever seen.
   */
  removeWhere(name: string, value: string): void {
    for (const [key, entry] of this.children) if (entry.labels[name] === value) this.children.delete(key);
  }

  private keyOf(values: readonly string[]): string {
    // Trailing optional values left out or '' are the same child.
    let n = values.length;
    while (n > this.required && values[n - 1] === '') n--;
    return values.slice(0, n).join('\u0000');
  }

  protected abstract newChild(): C;
  protected abstract samples(labels: Labels, child: C): Sample[];

  async get(): Promise<{ name: string; help: string; type: string; values: Sample[]; aggregator: 'sum' }> {
    const values: Sample[] = [];
    for (const { labels, child } of this.children.values()) values.push(...this.samples(labels, child));
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }
}

/** A counter child: only goes up. */
export interface BoundCounter {
  inc(n?: number): void;
  /** The current count. */
  readonly value: number;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** A gauge child. */
export interface BoundGauge {
  inc(n?: number): void;
  dec(n?: number): void;
  set(v: number): void;
  /** The current value. */
  readonly value: number;
}

/** A histogram child. */
export interface BoundHistogram {
  observe(v: number): void;
}

/** A family of counters. */
export class CounterFamily extends Family<BoundCounter> {
  readonly type = 'counter' as const;
  protected newChild(): BoundCounter {
    const child: Mutable<BoundCounter> = {
      value: 0,
      inc(n = 1) {
        if (n < 0) throw new ConfigurationError('a counter cannot go down');
        this.value += n;
      },
    };
    return child;
  }
  protected samples(labels: Labels, c: BoundCounter): Sample[] {
    return [{ value: c.value, labels }];
  }
}

/** A family of gauges. */
export class GaugeFamily extends Family<BoundGauge> {
  readonly type = 'gauge' as const;
  protected newChild(): BoundGauge {
    const child: Mutable<BoundGauge> = {
      value: 0,
      inc(n = 1) {
        this.value += n;
      },
      dec(n = 1) {
        this.value -= n;
      },
      set(v) {
        this.value = v;
      },
    };
    return child;
  }
  protected samples(labels: Labels, g: BoundGauge): Sample[] {
    return [{ value: g.value, labels }];
  }
}

/** A histogram child's state: a count per bucket (not cumulative), the sum and the count. */
class HistogramChild implements BoundHistogram {
  readonly counts: number[];
  sum = 0;
  count = 0;
  constructor(private readonly bounds: readonly number[]) {
    this.counts = new Array<number>(bounds.length).fill(0);
  }
  observe(v: number): void {
    this.sum += v;
    this.count++;
    // Bounds are few (12–40) and most observations are small: a linear scan from the bottom is fastest.
    const b = this.bounds;
    for (let i = 0; i < b.length; i++) {
      if (v <= b[i]!) {
        this.counts[i]!++;
        return;
      }
    }
  }
}

/** A family of histograms sharing one set of bucket upper bounds. */
export class HistogramFamily extends Family<BoundHistogram> {
  readonly type = 'histogram' as const;
  private readonly bounds: readonly number[];

  constructor(opts: FamilyOptions & { buckets: readonly number[] }) {
    super(opts);
    this.bounds = [...opts.buckets].sort((a, b) => a - b);
  }

  protected newChild(): BoundHistogram {
    return new HistogramChild(this.bounds);
  }

  protected samples(labels: Labels, h: BoundHistogram): Sample[] {
    const c = h as HistogramChild;
    const out: Sample[] = [];
    let cumulative = 0;
    this.bounds.forEach((le, i) => {
      cumulative += c.counts[i]!;
      out.push({ metricName: `${this.name}_bucket`, labels: { ...labels, le }, value: cumulative });
    });
    out.push({ metricName: `${this.name}_bucket`, labels: { ...labels, le: '+Inf' }, value: c.count });
    out.push({ metricName: `${this.name}_sum`, labels, value: c.sum });
    out.push({ metricName: `${this.name}_count`, labels, value: c.count });
    return out;
  }
}
