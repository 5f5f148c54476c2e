import { sleep } from './sleep.js';

/**
 * Time as the runtime's waiting loops see it (client-go's clock.Clock): a monotonic reading for deadlines, the wall
 * time for timestamps written to the API, and waits. Tests give a fake one and move it forward, instead of waiting.
 */
export interface Clock {
  /** Monotonic milliseconds, for measuring intervals (performance.now() on the real clock). */
  now(): number;
  /** The wall time, for timestamps written to objects (a Lease's renewTime). */
  date(): Date;
  /** Resolves true after `ms`, or false as soon as `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<boolean>;
}

/** The process's own clock. */
export const realClock: Clock = {
  now: () => performance.now(),
  date: () => new Date(),
  sleep,
};
