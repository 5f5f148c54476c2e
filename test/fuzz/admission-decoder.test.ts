// Fuzzing the admission webhooks' decoding: AdmissionReviews for the Captain kind (CREATE, UPDATE, DELETE), mutated
// structurally (values of the wrong type, nulls, huge strings, deep nesting, lists for objects), handed to
// AdmissionWebhook.handle as the server hands it a parsed body. It always resolves to an AdmissionReview whose
// response has a status code; 500 "panic" only where the user's code read the user's own data (spec, status) that
// nothing decodes, and never with handlers that read only what the decoder checks. FUZZ_SEED and FUZZ_CASE replay a
// failure (test/support/fuzz.ts).
import { describe, expect, it } from 'vitest';
import { newLogger } from '../../src/runtime/index.js';
import {
  AdmissionWebhook,
  defaultingHandler,
  field,
  validatingHandler,
  type AdmissionReview,
  type CustomDefaulter,
  type CustomValidator,
} from '../../src/runtime/webhook/index.js';
import {
  CaptainCustomDefaulter,
  CaptainCustomValidator,
  CaptainResource,
  DEFAULTED_LABEL,
  type Captain,
} from '../runtime/webhook/captain.js';
import { fuzz, mutateValues, summary, type Random, type ValuePath } from '../support/fuzz.js';

const quiet = newLogger({ level: 'error', sink: () => {} });
const ctx = () => ({ signal: new AbortController().signal, log: quiet });

const captain = (spec: Captain['spec']): Captain => ({
  apiVersion: 'crew.example.com/v1',
  kind: 'Captain',
  metadata: {
    name: 'c1',
    namespace: 'ns',
    uid: '0b8f',
    generation: 2,
    labels: { app: 'crew' },
    annotations: { note: 'x' },
    finalizers: ['crew.example.com/cleanup'],
    ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: 'u1' }],
  },
  spec,
  status: {
    conditions: [
      { type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z', reason: 'Ok', message: '' },
    ],
  },
});

function review(operation: 'CREATE' | 'UPDATE' | 'DELETE'): AdmissionReview {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: 'uid-1',
      kind: { group: 'crew.example.com', version: 'v1', kind: 'Captain' },
      resource: { group: 'crew.example.com', version: 'v1', resource: 'captains' },
      name: 'c1',
      namespace: 'ns',
      operation,
      userInfo: { username: 'admin', groups: ['system:masters'] },
      ...(operation === 'DELETE' ? {} : { object: captain({ foo: 'x', replicas: 3, mode: 'Slow' }) }),
      ...(operation === 'CREATE' ? {} : { oldObject: captain({ foo: 'old', replicas: 1 }) }),
    },
  };
}

const BASES = [review('CREATE'), review('UPDATE'), review('DELETE')];

// Handlers that read only what the decoder checks (TypeMeta, ObjectMeta): for them, no input may end in a 500.
const metadataDefaulter: CustomDefaulter<Captain> = {
  default(obj) {
    obj.metadata ??= {};
    obj.metadata.labels = { ...obj.metadata.labels, [DEFAULTED_LABEL]: String(obj.metadata.name ?? '') };
    obj.metadata.finalizers = [...(obj.metadata.finalizers ?? []), 'crew.example.com/fuzz'];
  },
};
const metadataValidator: CustomValidator<Captain> = {
  validateCreate: (obj) => ({
    errors: obj.metadata?.labels?.app === 'forbidden' ? [field.forbidden('metadata.labels', 'no')] : [],
    warnings: [`kind ${obj.kind ?? ''}`],
  }),
  validateUpdate: (old, obj) => ({
    errors:
      old.metadata?.name === obj.metadata?.name
        ? []
        : [field.invalid('metadata.name', obj.metadata?.name, 'immutable')],
  }),
  validateDelete: (obj) => ({ warnings: Object.keys(obj.metadata?.annotations ?? {}) }),
};

const HOOKS = [
  {
    name: 'Captain defaulter',
    hook: new AdmissionWebhook(defaultingHandler(CaptainResource, new CaptainCustomDefaulter())),
    readsSpec: true,
  },
  {
    name: 'Captain validator',
    hook: new AdmissionWebhook(validatingHandler(CaptainResource, new CaptainCustomValidator())),
    readsSpec: true,
  },
  {
    name: 'metadata defaulter',
    hook: new AdmissionWebhook(defaultingHandler(CaptainResource, metadataDefaulter)),
    readsSpec: false,
  },
  {
    name: 'metadata validator',
    hook: new AdmissionWebhook(validatingHandler(CaptainResource, metadataValidator)),
    readsSpec: false,
  },
];

/**
 * Whether a change at `path` is to data the decoder leaves to the user's code, as Go's leaves it to the typed struct
 * the user wrote: the object's spec and status, or the object or its metadata missing as a whole.
 */
function userData(path: ValuePath): boolean {
  if (path[0] !== 'request' || (path[1] !== 'object' && path[1] !== 'oldObject')) return false;
  return (
    path.length === 2 || path[2] === 'spec' || path[2] === 'status' || (path[2] === 'metadata' && path.length === 3)
  );
}

const CODES = [200, 400, 403, 422];

interface AdmissionCase {
  body: unknown;
  paths: ValuePath[];
  hook: (typeof HOOKS)[number];
}

function generate(r: Random): AdmissionCase {
  const { value, paths } = mutateValues(r, r.pick(BASES), 4);
  return { body: value, paths, hook: r.pick(HOOKS) };
}

async function check({ body, paths, hook }: AdmissionCase): Promise<void> {
  const out = await hook.hook.handle(body, ctx());
  expect(out.kind).toBe('AdmissionReview');
  expect(typeof out.apiVersion).toBe('string');
  const res = out.response!;
  expect(typeof res.uid).toBe('string');
  expect(typeof res.allowed).toBe('boolean');
  const code = res.status?.code ?? 200;
  if (code === 500) {
    expect(res.status?.message).toMatch(/^panic: /);
    // A panic is the user's code reading data nothing decodes; never the runtime's own, and never for these handlers.
    if (!hook.readsSpec || !paths.some(userData))
      throw new Error(`${hook.name} answered 500: ${res.status?.message ?? ''}`);
  } else {
    expect(CODES).toContain(code);
  }
  if (res.allowed) expect(code).toBe(200);
  else expect(res.status?.message ?? res.status?.reason).toBeTruthy();
  if (res.patch !== undefined)
    expect(Array.isArray(JSON.parse(Buffer.from(res.patch, 'base64').toString('utf8')))).toBe(true);
  // The server writes the review as JSON.
  expect(() => JSON.stringify(out)).not.toThrow();
}

describe('fuzzing the admission decoder', () => {
  it('answers each unmutated review 200 through every handler', async () => {
    for (const body of BASES) {
      for (const { hook } of HOOKS) expect((await hook.handle(body, ctx())).response?.status?.code).toBe(200);
    }
  });

  it('answers every mutated review with a review and a status code, never a throw or a runtime panic, within bounds', async () => {
    const stats = await fuzz<AdmissionCase>({
      name: 'admission decoder',
      iterations: 20_000,
      budgetMs: 15_000,
      callLimitMs: 2_000,
      generate,
      check,
      describe: ({ body, paths, hook }) =>
        `${hook.name}, mutated at ${JSON.stringify(paths)}: ${JSON.stringify(body, (_, v: unknown) => (typeof v === 'string' && v.length > 200 ? `${v.slice(0, 200)}… (${v.length} chars)` : v))}`,
    });
    console.log(summary('admission decoder', stats));
    expect(stats.cases).toBeGreaterThan(0);
  });
});
