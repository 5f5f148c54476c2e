import { hostname } from 'node:os';
import type { Logger } from '../log/index.js';
import { defineResource } from '../rest/resource.js';
import type { Client } from '../client/client.js';
import type { KubeObject } from '../rest/types.js';
import type { Runnable } from './runnable.js';
import { LifecycleError } from '../errors.js';
import { crypto } from '../internal/builtins.js';

const { randomBytes } = crypto;

/** The type of an Event: Normal, or Warning for something an operator should look at. */
export type EventType = 'Normal' | 'Warning';

/** Records Kubernetes Events about objects (client-go's record.EventRecorder); calls never block or throw. */
export interface EventRecorder {
  /** Records an Event about obj (record.EventRecorder.Event); reason is UpperCamelCase, message is for humans. */
  event(obj: KubeObject, type: EventType, reason: string, message: string): void;
}

/** core/v1 Event as JSON. */
interface CoreEvent extends KubeObject {
  involvedObject: {
    apiVersion?: string;
    kind?: string;
    name?: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
  };
  reason: string;
  message: string;
  type: EventType;
  source: { component: string; host?: string };
  firstTimestamp: string;
  lastTimestamp: string;
  count: number;
  reportingComponent: string;
  reportingInstance: string;
}

const CoreEvents = defineResource<CoreEvent>({
  group: '',
  version: 'v1',
  kind: 'Event',
  plural: 'events',
  namespaced: true,
});

// client-go's defaults (tools/record/events_cache.go, event.go).
const QUEUE_LIMIT = 1000;
const AGGREGATE_WINDOW_MS = 10 * 60_000;
const SPAM_BURST = 25;
const SPAM_REFILL_MS = 5 * 60_000;
const MAX_TRIES = 3;
const CACHE_LIMIT = 4096;

interface Pending {
  component: string;
  obj: KubeObject;
  type: EventType;
  reason: string;
  message: string;
  at: Date;
}

interface Seen {
  event: CoreEvent;
  at: number;
}

/**
 * Turns recorder calls into Event objects (client-go's EventBroadcaster + EventCorrelator, simplified): a repeat of
 * the same event within 10 minutes bumps the existing Event's count instead of creating another; each object and
 * component may emit a burst of 25 events, then one per 5 minutes; writes happen off the caller's path, in order.
 */
export class EventBroadcaster implements Runnable {
  private readonly queue: Pending[] = [];
  private readonly seen = new Map<string, Seen>();
  private readonly buckets = new Map<string, { tokens: number; updated: number }>();
  private wake: (() => void) | undefined;
  private running = false;
  private readonly instance = hostname();

  constructor(
    private readonly client: Client,
    private readonly log: Logger,
  ) {}

  needLeaderElection(): boolean {
    return false;
  }

  recorderFor(component: string): EventRecorder {
    return {
      event: (obj, type, reason, message) =>
        this.enqueue({ component, obj: structuredClone(obj), type, reason, message, at: new Date() }),
    };
  }

  private enqueue(p: Pending): void {
    if (this.queue.length >= QUEUE_LIMIT) {
      this.log.info('event queue full, dropping event', { reason: p.reason, object: p.obj.metadata?.name });
      return;
    }
    this.queue.push(p);
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  /** Writes queued events until `signal` aborts; events still queued then are dropped. */
  async start(signal: AbortSignal): Promise<void> {
    if (this.running) throw new LifecycleError('the event broadcaster was already started', 'AlreadyStarted');
    this.running = true;
    const onAbort = (): void => {
      const w = this.wake;
      this.wake = undefined;
      w?.();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      while (!signal.aborted) {
        const next = this.queue.shift();
        if (!next) {
          await new Promise<void>((resolve) => (this.wake = resolve));
          continue;
        }
        await this.write(next, signal);
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
      this.queue.length = 0;
    }
  }

  private allow(key: string, now: number): boolean {
    const b = this.buckets.get(key) ?? { tokens: SPAM_BURST, updated: now };
    b.tokens = Math.min(SPAM_BURST, b.tokens + (now - b.updated) / SPAM_REFILL_MS);
    b.updated = now;
    this.buckets.set(key, b);
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  }

  private async write(p: Pending, signal: AbortSignal): Promise<void> {
    const m = p.obj.metadata ?? {};
    if (!p.obj.apiVersion || !p.obj.kind || !m.name) {
      this.log.info('cannot record an event about an object without apiVersion, kind and name', { reason: p.reason });
      return;
    }
    const ref = {
      apiVersion: p.obj.apiVersion,
      kind: p.obj.kind,
      name: m.name,
      namespace: m.namespace,
      uid: m.uid,
      resourceVersion: m.resourceVersion,
    };
    const now = p.at.getTime();
    if (!this.allow(`${p.component}/${ref.kind}/${ref.namespace ?? ''}/${ref.name}/${ref.uid ?? ''}`, now)) return;
    const key = JSON.stringify([
      p.component,
      ref.apiVersion,
      ref.kind,
      ref.namespace,
      ref.name,
      ref.uid,
      p.type,
      p.reason,
      p.message,
    ]);
    const ts = p.at.toISOString().replace(/\.\d{3}Z$/, 'Z');
    const prior = this.seen.get(key);
    for (let attempt = 1; attempt <= MAX_TRIES && !signal.aborted; attempt++) {
      try {
        let stored: CoreEvent;
        if (prior && now - prior.at < AGGREGATE_WINDOW_MS) {
          stored = await this.client.patch(
            CoreEvents,
            { namespace: prior.event.metadata?.namespace, name: prior.event.metadata?.name ?? '' },
            { count: prior.event.count + 1, lastTimestamp: ts },
            { type: 'merge' },
          );
        } else {
          stored = await this.client.create(CoreEvents, {
            apiVersion: 'v1',
            kind: 'Event',
            metadata: { name: `${ref.name}.${randomBytes(8).toString('hex')}`, namespace: ref.namespace || 'default' },
            involvedObject: ref,
            reason: p.reason,
            message: p.message,
            type: p.type,
            source: { component: p.component, host: this.instance },
            firstTimestamp: ts,
            lastTimestamp: ts,
            count: 1,
            reportingComponent: p.component,
            reportingInstance: this.instance,
          });
        }
        this.remember(key, { event: stored, at: now });
        return;
      } catch (err) {
        // The aggregated Event may have been garbage-collected: start a new one.
        if ((err as { code?: number }).code === 404 && prior) {
          this.seen.delete(key);
          return this.write(p, signal);
        }
        if (attempt === MAX_TRIES) this.log.error(err, 'unable to write event', { reason: p.reason, object: ref.name });
        else await new Promise((r) => setTimeout(r, 100 * attempt));
      }
    }
  }

  private remember(key: string, s: Seen): void {
    this.seen.delete(key);
    this.seen.set(key, s);
    if (this.seen.size > CACHE_LIMIT) {
      const oldest = this.seen.keys().next();
      if (!oldest.done) this.seen.delete(oldest.value);
    }
  }
}
