import { describe, expect, it } from 'vitest';
import {
  AdmissionWebhook,
  defaultingHandler,
  validatingHandler,
  type AdmissionRequest,
  type AdmissionReview,
} from '../../../src/runtime/webhook/index.js';
import { ApiError, newLogger } from '../../../src/runtime/index.js';
import { type JsonPatchOperation } from '../../../src/runtime/client/index.js';
import {
  CaptainCustomDefaulter,
  CaptainCustomValidator,
  CaptainResource,
  DEFAULTED_LABEL,
  PROTECTED_LABEL,
  type Captain,
} from './captain.js';

const quiet = newLogger({ level: 'error', sink: () => {} });
const ctx = () => ({ signal: new AbortController().signal, log: quiet });

function captain(spec: Captain['spec'], labels?: Record<string, string>): Captain {
  return {
    apiVersion: 'crew.example.com/v1',
    kind: 'Captain',
    metadata: { name: 'c1', namespace: 'ns', ...(labels ? { labels } : {}) },
    spec,
  };
}

function review(req: Partial<AdmissionRequest>): AdmissionReview {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: 'uid-1',
      kind: { group: 'crew.example.com', version: 'v1', kind: 'Captain' },
      resource: { group: 'crew.example.com', version: 'v1', resource: 'captains' },
      name: 'c1',
      namespace: 'ns',
      operation: 'CREATE',
      userInfo: { username: 'admin' },
      ...req,
    },
  };
}

/** A value `depth` levels of objects deep. */
function nested(depth: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
}

function patchOf(r: AdmissionReview): JsonPatchOperation[] {
  return JSON.parse(Buffer.from(r.response!.patch!, 'base64').toString('utf8')) as JsonPatchOperation[];
}

const defaulting = new AdmissionWebhook(defaultingHandler(CaptainResource, new CaptainCustomDefaulter()));
const validating = new AdmissionWebhook(validatingHandler(CaptainResource, new CaptainCustomValidator()));

describe('defaulting webhook', () => {
  it('answers with a JSON patch from the received object to the defaulted one, and copies the uid', async () => {
    const out = await defaulting.handle(review({ object: captain({ foo: 'x' }) }), ctx());
    expect(out.apiVersion).toBe('admission.k8s.io/v1');
    expect(out.response).toMatchObject({ uid: 'uid-1', allowed: true, patchType: 'JSONPatch', status: { code: 200 } });
    expect(patchOf(out)).toEqual([
      { op: 'add', path: '/metadata/labels', value: { [DEFAULTED_LABEL]: 'true' } },
      { op: 'add', path: '/spec/replicas', value: 1 },
      { op: 'add', path: '/spec/mode', value: 'Fast' },
    ]);
  });

  it('sends no patch when the defaulter changes nothing', async () => {
    const out = await defaulting.handle(
      review({ object: captain({ foo: 'x', replicas: 2, mode: 'Slow' }, { [DEFAULTED_LABEL]: 'true' }) }),
      ctx(),
    );
    expect(out.response).toEqual({ uid: 'uid-1', allowed: true, status: { code: 200 } });
  });

  it('leaves members the defaulter set to undefined out of the patch, as JSON would', async () => {
    const hook = new AdmissionWebhook(
      defaultingHandler<Captain>(CaptainResource, {
        default: (obj) => {
          obj.spec.foo = undefined;
        },
      }),
    );
    const out = await hook.handle(review({ object: captain({ foo: 'x' }) }), ctx());
    expect(patchOf(out)).toEqual([{ op: 'remove', path: '/spec/foo' }]);
  });

  it('allows DELETE without calling the defaulter', async () => {
    const out = await defaulting.handle(review({ operation: 'DELETE', oldObject: captain({}) }), ctx());
    expect(out.response).toEqual({ uid: 'uid-1', allowed: true, status: { code: 200 } });
  });

  it('denies with 403 and the message when the defaulter throws an Error', async () => {
    const hook = new AdmissionWebhook(
      defaultingHandler<Captain>(CaptainResource, {
        default: () => {
          throw new Error('no defaults for you');
        },
      }),
    );
    const out = await hook.handle(review({ object: captain({}) }), ctx());
    expect(out.response).toEqual({
      uid: 'uid-1',
      allowed: false,
      status: { code: 403, reason: 'Forbidden', message: 'no defaults for you' },
    });
  });

  it('answers a programming error (a panic) with 500 instead of failing', async () => {
    const hook = new AdmissionWebhook(
      defaultingHandler<Captain>(CaptainResource, {
        default: (obj) => {
          (obj as unknown as { nope: { deeper: number } }).nope.deeper = 1;
        },
      }),
    );
    const out = await hook.handle(review({ object: captain({}) }), ctx());
    expect(out.response?.allowed).toBe(false);
    expect(out.response?.status?.code).toBe(500);
    expect(out.response?.status?.message).toMatch(/^panic: .* \[recovered\]$/);
  });

  it('passes an ApiError status through', async () => {
    const conflict = { status: 'Failure', code: 409, reason: 'Conflict', message: 'try again' };
    const hook = new AdmissionWebhook(
      defaultingHandler<Captain>(CaptainResource, {
        default: async () => {
          throw new ApiError(conflict);
        },
      }),
    );
    const out = await hook.handle(review({ object: captain({}) }), ctx());
    expect(out.response).toEqual({ uid: 'uid-1', allowed: false, status: conflict });
  });

  it('refuses a request for another kind with 400', async () => {
    const out = await defaulting.handle(
      review({ kind: { group: 'apps', version: 'v1', kind: 'Deployment' }, object: captain({}) }),
      ctx(),
    );
    expect(out.response?.allowed).toBe(false);
    expect(out.response?.status).toEqual({
      code: 400,
      message: 'this webhook handles Captain.crew.example.com, but the request is for Deployment.apps',
    });
  });

  it('answers a body that is not an AdmissionReview with an errored review', async () => {
    const out = await defaulting.handle({ kind: 'Pod' }, ctx());
    expect(out.response?.allowed).toBe(false);
    expect(out.response?.status?.code).toBe(400);
    const empty = await defaulting.handle({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' }, ctx());
    expect(empty.response).toEqual({
      uid: '',
      allowed: false,
      status: { code: 400, message: 'got an empty AdmissionReview request' },
    });
  });

  it('echoes the v1beta1 review version', async () => {
    const r = review({ object: captain({}) });
    const out = await defaulting.handle({ ...r, apiVersion: 'admission.k8s.io/v1beta1' }, ctx());
    expect(out.apiVersion).toBe('admission.k8s.io/v1beta1');
    expect(out.response?.allowed).toBe(true);
  });
});

describe('validating webhook', () => {
  it('allows a valid object', async () => {
    const out = await validating.handle(review({ object: captain({ foo: 'ok' }) }), ctx());
    expect(out.response).toEqual({ uid: 'uid-1', allowed: true, status: { code: 200 } });
  });

  it('denies field errors with the Invalid status apimachinery builds', async () => {
    const out = await validating.handle(review({ object: captain({ foo: 'forbidden', replicas: 11 }) }), ctx());
    expect(out.response?.allowed).toBe(false);
    expect(out.response?.status).toMatchObject({
      status: 'Failure',
      code: 422,
      reason: 'Invalid',
      message:
        'Captain.crew.example.com "c1" is invalid: [spec.foo: Invalid value: "forbidden": must not be "forbidden", spec.replicas: Invalid value: 11: must be at most 10]',
      details: { group: 'crew.example.com', kind: 'Captain', name: 'c1' },
    });
  });

  it('passes warnings through, whether allowed or denied', async () => {
    const ok = await validating.handle(review({ object: captain({ foo: 'deprecated' }) }), ctx());
    expect(ok.response).toMatchObject({ allowed: true, warnings: ['spec.foo: the value "deprecated" is deprecated'] });
    const update = await validating.handle(
      review({
        operation: 'UPDATE',
        object: captain({ foo: 'deprecated', mode: 'Slow' }),
        oldObject: captain({ mode: 'Fast' }),
      }),
      ctx(),
    );
    expect(update.response).toMatchObject({
      allowed: false,
      warnings: ['spec.foo: the value "deprecated" is deprecated'],
    });
    expect(update.response?.status?.message).toContain('spec.mode: Forbidden: is immutable once set');
  });

  it('validates deletes against oldObject', async () => {
    const out = await validating.handle(
      review({ operation: 'DELETE', object: null, oldObject: captain({}, { [PROTECTED_LABEL]: 'true' }) }),
      ctx(),
    );
    expect(out.response?.allowed).toBe(false);
    expect(out.response?.status?.message).toBe(
      `Captain.crew.example.com "c1" is invalid: metadata.labels: Forbidden: a Captain labelled ${PROTECTED_LABEL}=true may not be deleted`,
    );
  });

  it("gives the validator the old and new objects of an update, the request's own without copies", async () => {
    const seen: Array<[Captain, Captain]> = [];
    const hook = new AdmissionWebhook(
      validatingHandler<Captain>(CaptainResource, {
        validateCreate: () => {},
        validateUpdate: (o, n) => {
          seen.push([o, n]);
        },
        validateDelete: () => {},
      }),
    );
    const req = review({ operation: 'UPDATE', object: captain({ foo: 'new' }), oldObject: captain({ foo: 'old' }) });
    const out = await hook.handle(req, ctx());
    expect(out.response?.allowed).toBe(true);
    expect(seen[0]![0]).toBe(req.request!.oldObject);
    expect(seen[0]![1]).toBe(req.request!.object);
  });

  it.each([
    [
      'metadata that is a number',
      { apiVersion: 'crew.example.com/v1', kind: 'Captain', metadata: 5 },
      'request.object.metadata is a number, not an object',
    ],
    [
      'a label that is not a string',
      { kind: 'Captain', metadata: { name: 'c1', labels: { app: 7 } } },
      'request.object.metadata.labels["app"] is a number, not a string',
    ],
    ['an object that is a list', [1, 2], 'request.object is a list, not an object'],
    ['a kind that is not a string', { kind: 3 }, 'request.object.kind is a number, not a string'],
  ])('answers 400 with the decode error, never 500, for %s', async (_, object, message) => {
    const body = review({ operation: 'CREATE', object: object as unknown as Captain });
    for (const hook of [defaulting, validating]) {
      const out = await hook.handle(body, ctx());
      expect(out.response?.status).toEqual({ code: 400, message: `cannot decode the object: ${message}` });
      expect(out.response?.allowed).toBe(false);
    }
  });

  // Found by fuzzing (test/fuzz/admission-decoder.test.ts): the first reached a template string in the kind check,
  // the last structuredClone, and both were answered 500 "panic".
  it.each([
    [
      'a kind whose kind is an object with its own toString',
      { kind: { group: 'crew.example.com', version: 'v1', kind: { toString: {} } } },
      'request: request.kind.kind is an object, not a string',
    ],
    [
      'an operation that is a list',
      { operation: ['CREATE'] as unknown as 'CREATE' },
      'request: request.operation is a list, not a string',
    ],
    [
      'user groups that are not strings',
      { userInfo: { username: 'u', groups: [1] as unknown as string[] } },
      'request: request.userInfo.groups is not a list of strings',
    ],
    [
      'an owner reference uid that is an object',
      { object: { ...captain({}), metadata: { name: 'c1', ownerReferences: [{ uid: {} }] } } as unknown as Captain },
      'object: request.object.metadata.ownerReferences[0].uid is an object, not a string',
    ],
    [
      'an object nested 3,000 levels deep',
      { object: { ...captain({}), spec: nested(3_000) } as unknown as Captain },
      'object: request.object nests more than 1000 levels deep',
    ],
  ])('answers 400 with the decode error, never 500, for %s', async (_, req, message) => {
    const body = review({ operation: 'CREATE', object: captain({}), ...(req as unknown as Partial<AdmissionRequest>) });
    for (const hook of [defaulting, validating]) {
      const out = await hook.handle(body, ctx());
      expect(out.response).toEqual({
        uid: 'uid-1',
        allowed: false,
        status: { code: 400, message: `cannot decode the ${message}` },
      });
    }
  });

  it('reads an object nested 1,000 levels deep', async () => {
    const out = await defaulting.handle(
      review({ operation: 'CREATE', object: { ...captain({}), spec: nested(999) } as unknown as Captain }),
      ctx(),
    );
    expect(out.response).toMatchObject({ allowed: true, status: { code: 200 } });
  });

  it('answers 400 when the object to validate is missing', async () => {
    const out = await validating.handle(review({ operation: 'CREATE', object: null }), ctx());
    expect(out.response?.status).toEqual({ code: 400, message: 'there is no content to decode' });
  });
});
