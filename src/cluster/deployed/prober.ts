/**
 * An httpGet probe polled as the kubelet polls it: the first check after initialDelaySeconds, then one every
 * periodSeconds, each with timeoutSeconds; failureThreshold failures in a row make it fail, successThreshold
 * successes in a row make it pass again. The kubelet counts any status from 200 to 399 as success.
 */
import type { HttpProbe } from './pod.js';

export type ProbeState = 'unknown' | 'passing' | 'failing';

export interface ProberOptions {
  probe: HttpProbe;
  /** The local URL of the probe's path. */
  url: string;
  /** Called when the state changes; `detail` says what the last check saw. */
  onChange: (state: ProbeState, detail: string) => void;
  /** Seconds as milliseconds; tests shorten it. Default 1000. */
  secondMs?: number;
}

/** Runs one probe until stop(). */
export class Prober {
  private state: ProbeState = 'unknown';
  private failures = 0;
  private successes = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly opts: ProberOptions) {}

  start(): void {
    const second = this.opts.secondMs ?? 1000;
    this.timer = setTimeout(() => void this.tick(), this.opts.probe.initialDelaySeconds * second);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  private async check(): Promise<{ ok: boolean; detail: string }> {
    const second = this.opts.secondMs ?? 1000;
    try {
      const res = await fetch(this.opts.url, { signal: AbortSignal.timeout(this.opts.probe.timeoutSeconds * second) });
      await res.body?.cancel();
      return { ok: res.status >= 200 && res.status < 400, detail: `HTTP ${res.status}` };
    } catch (e) {
      const cause = (e as { cause?: { code?: string } }).cause?.code;
      return {
        ok: false,
        detail:
          (e as Error).name === 'TimeoutError'
            ? `no answer within ${this.opts.probe.timeoutSeconds}s`
            : (cause ?? (e as Error).message),
      };
    }
  }

  private async tick(): Promise<void> {
    const { ok, detail } = await this.check();
    if (this.stopped) return;
    const { probe } = this.opts;
    if (ok) {
      this.failures = 0;
      this.successes++;
      if (this.state !== 'passing' && this.successes >= probe.successThreshold) this.change('passing', detail);
    } else {
      this.successes = 0;
      this.failures++;
      if (this.state !== 'failing' && this.failures >= probe.failureThreshold)
        this.change('failing', `${detail}, ${this.failures} checks in a row`);
    }
    if (!this.stopped)
      this.timer = setTimeout(() => void this.tick(), probe.periodSeconds * (this.opts.secondMs ?? 1000));
  }

  private change(state: ProbeState, detail: string): void {
    this.state = state;
    this.opts.onChange(state, detail);
  }
}
