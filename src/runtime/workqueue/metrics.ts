// The metrics a queue reports, as client-go's workqueue.MetricsProvider. controller-runtime registers them as
// workqueue_depth, workqueue_adds_total, workqueue_queue_duration_seconds, workqueue_work_duration_seconds,
// workqueue_unfinished_work_seconds, workqueue_longest_running_processor_seconds and workqueue_retries_total,
// each labelled with the queue's name (and controller).

/** A gauge that goes up and down (the queue's depth). */
export interface GaugeMetric {
  /** Adds one. */
  inc(): void;
  /** Subtracts one. */
  dec(): void;
}
/** A gauge set to a value (unfinished work seconds, longest running processor seconds). */
export interface SettableGaugeMetric {
  /** Sets the gauge. */
  set(value: number): void;
}
/** A counter (adds, retries). */
export interface CounterMetric {
  /** Adds one. */
  inc(): void;
}
/** Observations are in seconds, as Prometheus histograms expect. */
export interface HistogramMetric {
  /** Records one observation, in seconds. */
  observe(seconds: number): void;
}

/**
 * Makes a queue's metrics, given its name (client-go's workqueue.MetricsProvider); the metrics module's
 * workqueueMetricsProvider registers them as controller-runtime does.
 */
export interface MetricsProvider {
  /** workqueue_depth: items waiting in the queue. */
  newDepthMetric(name: string): GaugeMetric;
  /** workqueue_adds_total: items added. */
  newAddsMetric(name: string): CounterMetric;
  /** workqueue_queue_duration_seconds: how long items wait before a worker gets them. */
  newLatencyMetric(name: string): HistogramMetric;
  /** workqueue_work_duration_seconds: how long processing an item takes. */
  newWorkDurationMetric(name: string): HistogramMetric;
  /** workqueue_unfinished_work_seconds: the work in progress and not yet done, in seconds summed over workers. */
  newUnfinishedWorkSecondsMetric(name: string): SettableGaugeMetric;
  /** workqueue_longest_running_processor_seconds: how long the longest-running item has been processed. */
  newLongestRunningProcessorSecondsMetric(name: string): SettableGaugeMetric;
  /** workqueue_retries_total: rate-limited re-adds. */
  newRetriesMetric(name: string): CounterMetric;
  /**
   * workqueue_depth of a priority queue, one gauge per priority (controller-runtime's NewDepthMetricWithPriority).
   * Without it a priority queue counts every priority in newDepthMetric's gauge.
   */
  newDepthMetricWithPriority?(name: string, priority: number): GaugeMetric;
}

/** How often unfinished work and the longest running processor are recomputed (client-go: 500 ms). */
export const UNFINISHED_WORK_UPDATE_PERIOD_MS = 500;

/** Tracks one queue's timings by item key; only built when the queue has a name and a provider. */
export class QueueMetrics {
  private readonly depth: GaugeMetric;
  private readonly adds: CounterMetric;
  private readonly latency: HistogramMetric;
  private readonly workDuration: HistogramMetric;
  private readonly unfinished: SettableGaugeMetric;
  private readonly longestRunning: SettableGaugeMetric;
  private readonly retries: CounterMetric;
  private readonly addTimes = new Map<unknown, number>();
  private readonly processingStartTimes = new Map<unknown, number>();
  private readonly depthByPriority = new Map<number, GaugeMetric>();

  constructor(
    private readonly name: string,
    private readonly provider: MetricsProvider,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.depth = provider.newDepthMetric(name);
    this.adds = provider.newAddsMetric(name);
    this.latency = provider.newLatencyMetric(name);
    this.workDuration = provider.newWorkDurationMetric(name);
    this.unfinished = provider.newUnfinishedWorkSecondsMetric(name);
    this.longestRunning = provider.newLongestRunningProcessorSecondsMetric(name);
    this.retries = provider.newRetriesMetric(name);
  }

  /** An item became ready; `priority` is given by a priority queue, whose depth is counted per priority. */
  add(key: unknown, priority?: number): void {
    const at = this.added(priority);
    if (!this.addTimes.has(key)) this.addTimes.set(key, at);
  }

  /**
   * An item became ready, counted as add() counts it, in a queue that keeps its entries' times itself (the priority
   * queue); returns the time to hand to taken().
   */
  added(priority?: number): number {
    this.adds.inc();
    this.depthOf(priority).inc();
    return this.now();
  }

  /** A ready item's priority was raised. */
  changePriority(from: number, to: number): void {
    this.depthOf(from).dec();
    this.depthOf(to).inc();
  }

  get(key: unknown, priority?: number): void {
    const addedAt = this.addTimes.get(key);
    this.addTimes.delete(key);
    this.taken(key, priority, addedAt);
  }

  /** get() for an item added with added(): `addedAt` is what added() returned (none: its wait is not observed). */
  taken(key: unknown, priority: number | undefined, addedAt: number | undefined): void {
    this.depthOf(priority).dec();
    const now = this.now();
    this.processingStartTimes.set(key, now);
    if (addedAt !== undefined) this.latency.observe((now - addedAt) / 1000);
  }

  done(key: unknown): void {
    const started = this.processingStartTimes.get(key);
    if (started !== undefined) {
      this.workDuration.observe((this.now() - started) / 1000);
      this.processingStartTimes.delete(key);
    }
  }

  private depthOf(priority: number | undefined): GaugeMetric {
    if (priority === undefined || !this.provider.newDepthMetricWithPriority) return this.depth;
    let g = this.depthByPriority.get(priority);
    if (!g) this.depthByPriority.set(priority, (g = this.provider.newDepthMetricWithPriority(this.name, priority)));
    return g;
  }

  retry(): void {
    this.retries.inc();
  }

  updateUnfinishedWork(): void {
    const now = this.now();
    let total = 0;
    let oldest = 0;
    for (const started of this.processingStartTimes.values()) {
      const age = (now - started) / 1000;
      total += age;
      if (age > oldest) oldest = age;
    }
    this.unfinished.set(total);
    this.longestRunning.set(oldest);
  }
}
