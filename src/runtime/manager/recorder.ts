import { hostname } from 'node:os';
import type { Logger } from '../log/index.js';
import { defineResource } from '../rest/resource.js';
import type { Client } from '../client/client.js';
import type { KubeObject } from '../rest/types.js';
import type { Runnable } from './runnable.js';
import { LifecycleError } from '../errors.js';
import { crypto } from '../internal/builtins.js';
import { microTime } from '../leaderelection/lease.js';

const { randomBytes } = crypto;

/** The type of an Event: Normal, or Warning for something an operator should look at. */
export type EventType = 'Normal' | 'Warning';

/** Records Kubernetes Events about objects (client-go's record.EventRecorder); calls never block or throw. */
export interface EventRecorder {
  /** Records an Event about obj (record.EventRecorder.Event); reason is UpperCamelCase, message is for humans. */
  event(obj: KubeObject, type: EventType, reason: string, message: string): void;
}

/**
 * Records events.k8s.io/v1 Events (client-go's tools/events EventRecorder, what controller-runtime's GetEventRecorder
 * returns); calls never block or throw. Where the server does not serve events.k8s.io/v1, the event is written as a
 * core/v1 Event without `related` and `action`, as client-go's EventBroadcasterAdapter does.
 * @example
 * A reconciler records what it did to the object it reconciles.
 * ```ts
 * import { Manager, loadKubeConfig } from '@kubescaffold/runtime';
 *
 * const mgr = new Manager({ kubeConfig: loadKubeConfig() });
 * const recorder = mgr.getEventRecorder('captain-controller');
 * const captain = { apiVersion: 'crew.example.com/v1', kind: 'Captain', metadata: { name: 'jack', namespace: 'default', uid: 'u-1' } };
 * recorder.record(captain, undefined, 'Normal', 'Reconciled', 'Reconcile', 'the ship is ready');
 * ```
 */
export interface EventsRecorder {
  /**
   * Records that `action` (UpperCamelCase, e.g. Scale) was taken or failed on `regarding`, maybe about `related`;
   * `reason` (UpperCamelCase) says why, `note` (at most 1 KiB) is for humans.
   */
  record(
    regarding: KubeObject,
    related: KubeObject | undefined,
    type: EventType,
    reason: string,
    action: string,
    note: string,
  ): void;
}

/** Options of an {@link EventBroadcaster}. */
export interface EventBroadcasterOptions {
  /**
   * Whether the server serves events.k8s.io/v1, asked once before the first such event is written (the manager asks
   * discovery); default yes. When not, recorders from eventsRecorderFor write core/v1 Events.
   */
  servesEventsV1?: () => Promise<boolean>;
}

/** An object reference as Events carry it (core/v1 ObjectReference). */
interface ObjectReference {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
}

/** events.k8s.io/v1 Event as JSON. */
interface EventV1 extends KubeObject {
  eventTime: string;
  series?: { count: number; lastObservedTime: string };
  reportingController: string;
  reportingInstance: string;
  action: string;
  reason: string;
  regarding: ObjectReference;
  related?: ObjectReference;
  note: string;
  type: EventType;
}

const EventsV1 = defineResource<EventV1>({
  group: 'events.k8s.io',
  version: 'v1',
  kind: 'Event',
  plural: 'events',
  namespaced: true,
});

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

// client-go's defaults (tools/record/events_cache.go, event.go; tools/events: a series ends 6 minutes after its last
// event).
const SERIES_WINDOW_MS = 6 * 60_000;
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
  /** Set for events.k8s.io/v1 events (eventsRecorderFor): the action taken, and the related object if any. */
  v1?: { action: string; related: KubeObject | undefined };
}

interface Seen {
  event: CoreEvent | EventV1;
  at: number;
}

/**
 * Turns recorder calls into Event objects (client-go's EventBroadcaster + EventCorrelator, simplified): a repeat of
 * the same event within 10 minutes bumps the existing Event's count instead of creating another (for
 * events.k8s.io/v1, its series' count, while the series' last event is under 6 minutes old); each object and
 * component may emit a burst of 25 events, then one per 5 minutes; writes happen off the caller's path, in order.
 * Where client-go's events.k8s.io/v1 broadcaster batches a series' updates every 30 minutes, this one writes each
 * repeat at once, within the same spam limit as core/v1 events: fewer moving parts, and the count is current.
 */
export class EventBroadcaster implements Runnable {
  private readonly queue: Pending[] = [];
  private readonly seen = new Map<string, Seen>();
  private readonly buckets = new Map<string, { tokens: number; updated: number }>();
  private wake: (() => void) | undefined;
  private running = false;
  private readonly instance = hostname();
  private eventsV1: Promise<boolean> | undefined;

  constructor(
    private readonly client: Client,
    private readonly log: Logger,
    private readonly opts: EventBroadcasterOptions = {},
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

  /** A recorder of events.k8s.io/v1 Events as `controller` (their reportingController). */
  eventsRecorderFor(controller: string): EventsRecorder {
    return {
      record: (regarding, related, type, reason, action, note) =>
        this.enqueue({
          component: controller,
          obj: structuredClone(regarding),
          type,
          reason,
          message: note,
          at: new Date(),
          v1: { action, related: related && structuredClone(related) },
        }),
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
    const ref = referenceOf(p.obj);
    const now = p.at.getTime();
    if (p.v1 && (await this.servesEventsV1())) return this.writeV1(p, ref, now, signal);
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
            { count: (prior.event as CoreEvent).count + 1, lastTimestamp: ts },
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

  private servesEventsV1(): Promise<boolean> {
    this.eventsV1 ??= (this.opts.servesEventsV1?.() ?? Promise.resolve(true)).catch((err: unknown) => {
      this.log.error(err, 'cannot tell whether the server serves events.k8s.io/v1; recording core/v1 Events');
      return false;
    });
    return this.eventsV1;
  }

  // An events.k8s.io/v1 Event; a repeat while its series is open (6 minutes since the last) updates the series.
  private async writeV1(p: Pending, ref: ObjectReference, now: number, signal: AbortSignal): Promise<void> {
    const { action, related } = p.v1!;
    if (!this.allow(`${p.component}/${ref.kind}/${ref.namespace ?? ''}/${ref.name}/${ref.uid ?? ''}`, now)) return;
    const relatedRef = related?.apiVersion && related.kind && related.metadata?.name ? referenceOf(related) : undefined;
    const key = JSON.stringify(['v1', p.component, ref, relatedRef, p.type, p.reason, action, p.message]);
    const time = microTime(p.at);
    const prior = this.seen.get(key);
    for (let attempt = 1; attempt <= MAX_TRIES && !signal.aborted; attempt++) {
      try {
        let stored: EventV1;
        if (prior && now - prior.at < SERIES_WINDOW_MS) {
          const count = ((prior.event as EventV1).series?.count ?? 1) + 1;
          stored = await this.client.patch(
            EventsV1,
            { namespace: prior.event.metadata?.namespace, name: prior.event.metadata?.name ?? '' },
            { series: { count, lastObservedTime: time } },
            { type: 'merge' },
          );
        } else {
          stored = await this.client.create(EventsV1, {
            apiVersion: 'events.k8s.io/v1',
            kind: 'Event',
            metadata: { name: `${ref.name}.${randomBytes(8).toString('hex')}`, namespace: ref.namespace || 'default' },
            eventTime: time,
            reportingController: p.component,
            reportingInstance: `${p.component}-${this.instance}`,
            action,
            reason: p.reason,
            regarding: ref,
            ...(relatedRef ? { related: relatedRef } : {}),
            note: p.message,
            type: p.type,
          });
        }
        this.remember(key, { event: stored, at: now });
        return;
      } catch (err) {
        if ((err as { code?: number }).code === 404 && prior) {
          this.seen.delete(key);
          return this.writeV1(p, ref, now, signal);
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

// The reference an Event carries to an object that has apiVersion, kind and name.
function referenceOf(obj: KubeObject): ObjectReference {
  const m = obj.metadata ?? {};
  return {
    apiVersion: obj.apiVersion!,
    kind: obj.kind!,
    name: m.name!,
    namespace: m.namespace,
    uid: m.uid,
    resourceVersion: m.resourceVersion,
  };
}
