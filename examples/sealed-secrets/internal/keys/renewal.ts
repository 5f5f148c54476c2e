/*
Copyright 2026 The Sealed Secrets port's authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// The original's key renewal (initKeyRenewal, ScheduleJobWithTrigger): a new sealing key each period, the first one
// period after the newest key's time. Old keys stay, so that what they sealed still opens.

import type { Client, Logger } from '@kubescaffold/runtime';
import type { Runnable } from '@kubescaffold/runtime/manager';
import { generateKey, type KeyOptions, type KeyRegistry } from './registry.js';

/** A runnable that adds a key to `registry` every `periodMs` (> 0) until the manager stops. */
export function keyRenewal(deps: { registry: KeyRegistry; writer: Client; log: Logger }, opts: KeyOptions & { periodMs: number }): Runnable {
  return {
    async start(signal: AbortSignal): Promise<void> {
      const newest = deps.registry.latest()?.orderingTime.getTime() ?? Date.now();
      let delay = Math.max(0, opts.periodMs - (Date.now() - newest));
      while (await sleep(delay, signal)) {
        try {
          await generateKey(deps.writer, deps.registry, opts, deps.log);
        } catch (err) {
          deps.log.error(err, 'Failed to generate new key');
        }
        delay = opts.periodMs;
      }
    },
  };
}

// Resolves true after ms, or false as soon as signal aborts. Timers above 2^31-1 ms fire at once in Node, so a long
// period is slept in steps.
async function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  const MAX_TIMER_MS = 2 ** 31 - 1;
  let left = ms;
  do {
    const step = Math.min(left, MAX_TIMER_MS);
    const finished = await new Promise<boolean>((resolve) => {
      if (signal.aborted) return resolve(false);
      const onAbort = (): void => {
        clearTimeout(timer);
        resolve(false);
      };
      const timer = setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        resolve(true);
      }, step);
      signal.addEventListener('abort', onAbort, { once: true });
    });
    if (!finished) return false;
    left -= step;
  } while (left > 0);
  return true;
}
