// Our PriorityQueue against controller-runtime's (pkg/controller/priorityqueue, v0.25.2, through bench/go/pqorder):
// the same scripts of adds and takes must hand items out in the same order with the same priorities. The scripts are
// what a controller's queue sees after a restart: an initial list at LOW_PRIORITY, then a burst of real changes,
// raises of queued items, lower-priority adds of queued items, and requeues at other priorities, with workers taking
// items in between. Needs Go to build the peer: without it the comparison is skipped loudly, and fails under
// REQUIRE_PARITY=1 (CI).
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { LOW_PRIORITY, PriorityQueue } from '../../../src/runtime/workqueue/index.js';
import { buildGoPeer } from '../../support/go-peer.js';
import { peerAvailable } from '../../support/peers.js';

type Step = { add: string; priority?: number } | { take: number } | { drain: true };
interface HandedOut {
  key: string;
  priority: number;
}

const peer = ((): string | undefined => {
  try {
    return buildGoPeer('pqorder');
  } catch (err) {
    peerAvailable(
      "the priority queue's order against controller-runtime's",
      `the Go peer bench/go/pqorder could not be built: ${(err as Error).message}`,
    );
    return undefined;
  }
})();

function theirs(script: Step[]): HandedOut[] {
  const r = spawnSync(peer!, [], { input: JSON.stringify(script), encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`bench/go/pqorder failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as HandedOut[];
}

async function ours(script: Step[]): Promise<HandedOut[]> {
  const q = new PriorityQueue<string>();
  const out: HandedOut[] = [];
  for (const s of script) {
    if ('add' in s) q.add(s.add, s.priority ?? 0);
    else
      for (let i = 0; 'take' in s ? i < s.take : q.len() > 0; i++) {
        const r = await q.get();
        if (r.shutdown) throw new Error('shut down');
        out.push({ key: r.item, priority: r.priority });
        q.done(r.item);
      }
  }
  q.shutDown();
  return out;
}

/** A seeded generator, so that a failing burst can be run again as it was. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** An initial list of `listed` objects at LOW_PRIORITY, then rounds of takes and bursts of adds. */
function restartScript(seed: number, listed: number): Step[] {
  const next = random(seed);
  const key = (i: number): string => `ns/o${i}`;
  const script: Step[] = [];
  for (let i = 0; i < listed; i++) script.push({ add: key(i), priority: LOW_PRIORITY });
  let queued = listed;
  for (let round = 0; round < 20 && queued > 0; round++) {
    const take = Math.min(queued, 1 + Math.floor(next() * 8));
    script.push({ take });
    queued -= take;
    const burst = Math.floor(next() * 12);
    for (let b = 0; b < burst; b++) {
      const priorities = [0, 0, 0, LOW_PRIORITY, 10, -5];
      const priority = priorities[Math.floor(next() * priorities.length)]!;
      // Mostly objects of the list (queued, or handed out already), sometimes new ones.
      const i = next() < 0.8 ? Math.floor(next() * listed) : listed + Math.floor(next() * 50);
      script.push({ add: key(i), priority });
    }
  }
  script.push({ drain: true });
  return script;
}

describe.skipIf(!peer)("PriorityQueue's order against controller-runtime's priority queue", () => {
  it('hands out a restart burst in the same order, with the same priorities', async () => {
    for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
      const script = restartScript(seed, 60);
      const want = theirs(script);
      expect(want.length, `seed ${seed}: every listed object handed out`).toBeGreaterThanOrEqual(60);
      expect(await ours(script), `seed ${seed}`).toEqual(want);
    }
  });
});
