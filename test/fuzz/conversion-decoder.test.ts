// Fuzzing the conversion webhook's decoding: ConversionReviews of Captains (v1 to v2 and back, one or two objects),
// mutated structurally (values of the wrong type, nulls, huge strings, deep nesting, lists for objects), handed to
// ConversionWebhook.handle as the server hands it a parsed body. It either refuses the body as not a review (an
// HttpError 400) or answers a review whose result is Success, with every object converted to the desired version, or
// Failure with a message: a converter that met data it did not expect is a Failure "panic", a malformed object a
// Failure naming it. Never another throw. FUZZ_SEED and FUZZ_CASE replay a failure (test/support/fuzz.ts).
import { describe, expect, it } from 'vitest';
import { newLogger, type KubeObject } from '../../src/runtime/index.js';
import { ConversionWebhook, HttpError, type ConversionReview } from '../../src/runtime/webhook/index.js';
import {
  CaptainResource,
  CaptainV2Resource,
  captainConversion,
  captainV1Sample,
  captainV2Sample,
} from '../runtime/webhook/captain.js';
import { fuzz, mutateValues, summary, type Random, type ValuePath } from '../support/fuzz.js';

const quiet = newLogger({ level: 'error', sink: () => {} });
const ctx = () => ({ signal: new AbortController().signal, log: quiet });

const webhook = new ConversionWebhook();
webhook.register(CaptainResource, [{ resource: CaptainV2Resource, conversion: captainConversion }]);

const v1 = captainV1Sample;
const v2 = captainV2Sample;

const review = (desiredAPIVersion: string, objects: KubeObject[]): ConversionReview => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'ConversionReview',
  request: { uid: 'u-1', desiredAPIVersion, objects },
});
const BASES = [
  review('crew.example.com/v2', [v1]),
  review('crew.example.com/v1', [v2, v2]),
  review('crew.example.com/v2', [v1, v2]),
];

interface ConversionCase {
  body: unknown;
  paths: ValuePath[];
}

function generate(r: Random): ConversionCase {
  const { value, paths } = mutateValues(r, r.pick(BASES), 4);
  return { body: value, paths };
}

async function check({ body }: ConversionCase): Promise<void> {
  let out: ConversionReview;
  try {
    out = await webhook.handle(body, ctx());
  } catch (err) {
    // The one refusal allowed: a body that is not a ConversionReview request, answered 400 by the server.
    if (err instanceof HttpError && err.code === 400) return;
    throw err;
  }
  expect(out.kind).toBe('ConversionReview');
  const res = out.response!;
  expect(typeof res.uid).toBe('string');
  const request = (body as ConversionReview).request!;
  if (res.result.status === 'Success') {
    expect(res.convertedObjects).toHaveLength(request.objects.length);
    for (const o of res.convertedObjects) expect(o.apiVersion).toBe(request.desiredAPIVersion);
  } else {
    expect(res.result.status).toBe('Failure');
    expect(res.result.message).toBeTruthy();
    expect(res.convertedObjects).toEqual([]);
  }
  // The server writes the review as JSON.
  expect(() => JSON.stringify(out)).not.toThrow();
}

describe('fuzzing the conversion decoder', () => {
  it('converts each unmutated review with Success', async () => {
    for (const body of BASES) expect((await webhook.handle(body, ctx())).response?.result.status).toBe('Success');
  });

  it('answers every mutated review with a 400 refusal, or a Success or Failure review, never another throw', async () => {
    const stats = await fuzz<ConversionCase>({
      name: 'conversion decoder',
      iterations: 10_000,
      budgetMs: 8_000,
      callLimitMs: 2_000,
      generate,
      check,
      describe: ({ body, paths }) =>
        `mutated at ${JSON.stringify(paths)}: ${JSON.stringify(body, (_, v: unknown) => (typeof v === 'string' && v.length > 200 ? `${v.slice(0, 200)}… (${v.length} chars)` : v))}`,
    });
    console.log(summary('conversion decoder', stats));
    expect(stats.cases).toBeGreaterThan(0);
  });
});
