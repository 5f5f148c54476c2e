/**
 * What a controller makes for each reconcile: the key/values of its logger and the context its reconciler gets.
 *
 * No object literal with a getter: V8 puts one in dictionary mode, at about 1 µs and 2 KiB of garbage per reconcile.
 * The lazy parts (the reconcileID, the reconcile's own AbortController) are still made only when read.
 */
import type { Logger } from '../log/index.js';
import type { ReconcileContext } from '../reconcile/index.js';
import { crypto } from '../internal/builtins.js';

const { randomUUID } = crypto;

/**
 * A reconcile's random id (controller-runtime's reconcileID), made when first read. Its logger's values hold it as it
 * is: a log line's JSON reads it through toJSON, so the id is made only when a line is written.
 */
export class ReconcileID {
  #id: string | undefined;

  /** The id, the same on every call. */
  get(): string {
    return (this.#id ??= randomUUID());
  }

  /** The id, as a log line's JSON shows it. */
  toJSON(): string {
    return this.get();
  }

  /** The id. */
  toString(): string {
    return this.get();
  }
}

/**
 * The key/values a reconcile's logger adds: a Request's namespace and name (or a typed request's own members, such as
 * its cluster) and reconcileID. A plain object of one shape, made per reconcile.
 */
export function requestLogValues(req: { namespace: string; name: string }, ids: ReconcileID): Record<string, unknown> {
  return { namespace: req.namespace, name: req.name, reconcileID: ids };
}

/** requestLogValues for a typed request: its own members, whatever they are. */
export function typedRequestLogValues(req: object, ids: ReconcileID): Record<string, unknown> {
  return { ...req, reconcileID: ids };
}

/**
 * The context one reconcile gets. Its signal is an AbortController of its own, made when the reconciler first reads
 * it (or at once for a timeout) and aborted with the controller's hard stop; most reconcilers never read it.
 */
export class ControllerReconcileContext implements ReconcileContext {
  readonly log: Logger;
  readonly controller: string;
  readonly #ids: ReconcileID;
  readonly #hardStop: AbortSignal;
  #own: AbortController | undefined;
  #onHardStop: (() => void) | undefined;

  // Positional, not an options object: one is made per reconcile.
  constructor(log: Logger, controller: string, ids: ReconcileID, hardStop: AbortSignal) {
    this.log = log;
    this.controller = controller;
    this.#ids = ids;
    this.#hardStop = hardStop;
  }

  get reconcileID(): string {
    return this.#ids.get();
  }

  get signal(): AbortSignal {
    return this.#controller().signal;
  }

  /** Aborts this reconcile's signal (its timeout passed). */
  abort(reason: unknown): void {
    this.#controller().abort(reason);
  }

  /** Ends the reconcile: its signal no longer follows the controller's hard stop. */
  release(): void {
    if (this.#onHardStop) this.#hardStop.removeEventListener('abort', this.#onHardStop);
    this.#onHardStop = undefined;
  }

  #controller(): AbortController {
    if (this.#own) return this.#own;
    const own = (this.#own = new AbortController());
    const hard = this.#hardStop;
    if (hard.aborted) own.abort(hard.reason);
    else {
      this.#onHardStop = () => own.abort(hard.reason);
      hard.addEventListener('abort', this.#onHardStop, { once: true });
    }
    return own;
  }
}
