/**
 * client-go's work queues and rate limiters.
 *
 * @module @kubescaffold/runtime/workqueue
 */
export { Queue, type GetResult, type QueueOptions } from './queue.js';
export { DelayingQueue } from './delaying-queue.js';
export { RateLimitingQueue, type RateLimitingQueueOptions } from './rate-limiting-queue.js';
export {
  LOW_PRIORITY,
  PriorityQueue,
  type PriorityAddOptions,
  type PriorityGetResult,
  type PriorityQueueOptions,
} from './priority-queue.js';
export { PartitionedQueue, type PartitionedQueueOptions } from './partitioned-queue.js';
export {
  BucketRateLimiter,
  FixedDelayRateLimiter,
  ItemExponentialFailureRateLimiter,
  ItemFastSlowRateLimiter,
  MaxOfRateLimiter,
  defaultControllerRateLimiter,
  defaultItemBasedRateLimiter,
  type RateLimiter,
} from './rate-limiters.js';
export {
  UNFINISHED_WORK_UPDATE_PERIOD_MS,
  type CounterMetric,
  type GaugeMetric,
  type HistogramMetric,
  type MetricsProvider,
  type SettableGaugeMetric,
} from './metrics.js';
