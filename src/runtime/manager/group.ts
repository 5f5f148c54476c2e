import type { Logger } from '../log/index.js';
import type { Runnable } from './runnable.js';

/**
 * Runnables that start and stop together (controller-runtime's runnableGroup): one AbortController for the group,
 * each start() tracked so stop() can wait for all of them. A runnable that rejects reports through onError.
 */
export class RunnableGroup {
  private readonly members: Runnable[] = [];
  private readonly running = new Set<Promise<void>>();
  private readonly ac = new AbortController();
  private startedFlag = false;

  constructor(
    readonly name: string,
    private readonly onError: (err: unknown, r: Runnable) => void,
    private readonly log: Logger,
  ) {}

  add(r: Runnable): void {
    this.members.push(r);
    if (this.startedFlag) this.launch(r);
  }

  get started(): boolean {
    return this.startedFlag;
  }

  get size(): number {
    return this.members.length;
  }

  /** Starts every member, and members added later at once. Idempotent. */
  start(): void {
    if (this.startedFlag || this.ac.signal.aborted) return;
    this.startedFlag = true;
    for (const r of this.members) this.launch(r);
  }

  /** Aborts the group's signal and waits until every member's start() has settled, or `deadline` passes. */
  async stop(deadline: Promise<void>): Promise<boolean> {
    this.ac.abort();
    const all = Promise.all([...this.running]).then(() => true);
    return Promise.race([all, deadline.then(() => false)]);
  }

  private launch(r: Runnable): void {
    let p: Promise<void>;
    try {
      p = Promise.resolve(r.start(this.ac.signal));
    } catch (err) {
      p = Promise.reject(err);
    }
    const tracked = p.then(
      () => {},
      (err: unknown) => {
        if (this.ac.signal.aborted) this.log.error(err, 'runnable failed while stopping', { group: this.name });
        else this.onError(err, r);
      },
    );
    this.running.add(tracked);
    void tracked.finally(() => this.running.delete(tracked));
  }
}
