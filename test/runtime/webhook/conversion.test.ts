import { describe, expect, it } from 'vitest';
import { ConversionWebhook, HttpError, type ConversionReview } from '../../../src/runtime/webhook/index.js';
import { defineResource, newLogger, type KubeObject } from '../../../src/runtime/index.js';
import {
  CaptainResource,
  CaptainV2Resource,
  captainConversion,
  captainSampleMetadata,
  captainV1Sample,
  captainV2Sample,
  type Captain,
  type CaptainV2,
} from './captain.js';

const quiet = newLogger({ level: 'error', sink: () => {} });
const ctx = () => ({ signal: new AbortController().signal, log: quiet });

function webhook(): ConversionWebhook {
  const w = new ConversionWebhook();
  w.register(CaptainResource, [{ resource: CaptainV2Resource, conversion: captainConversion }]);
  return w;
}

const metadata = captainSampleMetadata;
const v1 = captainV1Sample;
const v2 = captainV2Sample;

function review(desiredAPIVersion: string, objects: KubeObject[]): ConversionReview {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'ConversionReview',
    request: { uid: 'u-1', desiredAPIVersion, objects },
  };
}

describe('conversion webhook', () => {
  it('refuses reviews over 7 MiB, as controller-runtime does for conversion and admission alike', () => {
    expect(new ConversionWebhook().maxRequestBytes).toBe(7 * 1024 * 1024);
  });

  it('keeps the source metadata when a conversion changes it in place', () => {
    const w = new ConversionWebhook();
    w.register(CaptainResource, [
      {
        resource: CaptainV2Resource,
        conversion: {
          convertTo: (s) => {
            s.metadata!.name = 'renamed';
            s.metadata!.labels = { changed: 'yes' };
            return { apiVersion: '', kind: 'Captain', metadata: s.metadata!, spec: { foo: s.spec.foo } };
          },
          convertFrom: (h) => ({ apiVersion: '', kind: 'Captain', metadata: h.metadata, spec: { foo: h.spec.foo } }),
        },
      },
    ]);
    const out = w.convertObject(structuredClone(v2), 'crew.example.com/v1');
    expect(out.metadata).toEqual({ ...metadata, labels: { changed: 'yes' } });
  });

  it('converts hub to spoke and spoke to hub, keeping metadata', () => {
    const w = webhook();
    expect(w.convertObject(structuredClone(v1), 'crew.example.com/v2')).toEqual(v2);
    expect(w.convertObject(structuredClone(v2), 'crew.example.com/v1')).toEqual(v1);
  });

  it('round-trips both versions without loss', () => {
    const w = webhook();
    expect(w.convertObject(w.convertObject(structuredClone(v1), 'crew.example.com/v2'), 'crew.example.com/v1')).toEqual(
      v1,
    );
    expect(w.convertObject(w.convertObject(structuredClone(v2), 'crew.example.com/v1'), 'crew.example.com/v2')).toEqual(
      v2,
    );
  });

  it('converts between two spokes through the hub', () => {
    const V3 = defineResource<KubeObject & { spec: { title?: string; speed?: string; size?: { replicas?: number } } }>({
      ...CaptainResource,
      version: 'v3',
    });
    const w = new ConversionWebhook();
    w.register(CaptainResource, [
      { resource: CaptainV2Resource, conversion: captainConversion },
      {
        resource: V3,
        conversion: {
          convertTo: (s) => ({
            apiVersion: '',
            kind: 'Captain',
            metadata: s.metadata ?? {},
            spec: { foo: s.spec.title },
          }),
          convertFrom: (h) => ({ apiVersion: '', kind: 'Captain', metadata: h.metadata, spec: { title: h.spec.foo } }),
        },
      },
    ]);
    const out = w.convertObject(structuredClone(v2), 'crew.example.com/v3');
    expect(out).toEqual({ apiVersion: 'crew.example.com/v3', kind: 'Captain', metadata, spec: { title: 'bar' } });
  });

  it('keeps the source metadata even when a conversion drops it, but takes its labels and annotations', () => {
    const w = new ConversionWebhook();
    w.register(CaptainResource, [
      {
        resource: CaptainV2Resource,
        conversion: {
          convertTo: (s) => ({
            apiVersion: 'x',
            kind: 'Captain',
            metadata: { name: 'other' },
            spec: { foo: s.spec.foo },
          }),
          convertFrom: (h) => ({
            apiVersion: 'x',
            kind: 'Captain',
            metadata: { annotations: { stashed: 'yes' } },
            spec: { foo: h.spec.foo },
          }),
        },
      },
    ]);
    const out = w.convertObject(structuredClone(v1), 'crew.example.com/v2');
    expect(out.metadata).toEqual({ ...metadata, annotations: { stashed: 'yes' } });
    expect(w.convertObject(structuredClone(v2), 'crew.example.com/v1').metadata).toEqual(metadata);
  });

  it('answers a review with every object converted and the uid copied', async () => {
    const out = await webhook().handle(
      review('crew.example.com/v2', [structuredClone(v1), structuredClone(v1)]),
      ctx(),
    );
    expect(out).toEqual({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'ConversionReview',
      response: { uid: 'u-1', convertedObjects: [v2, v2], result: { status: 'Success' } },
    });
  });

  it('fails the review with the decode error for a malformed object, never a panic', async () => {
    const bad = { ...structuredClone(v1), metadata: 5 } as unknown as Captain;
    const out = await webhook().handle(review('crew.example.com/v2', [structuredClone(v1), bad]), ctx());
    expect(out.response?.result).toEqual({
      status: 'Failure',
      message: 'cannot decode the object: request.objects[1].metadata is a number, not an object',
    });
    expect(out.response?.convertedObjects).toEqual([]);
  });

  it('fails the review with a clear message for versions it does not know', async () => {
    const w = webhook();
    const toV9 = await w.handle(review('crew.example.com/v9', [structuredClone(v1)]), ctx());
    expect(toV9.response).toEqual({
      uid: 'u-1',
      convertedObjects: [],
      result: {
        status: 'Failure',
        message:
          'conversion to crew.example.com/v9 is not supported for Captain; known versions: crew.example.com/v1 (hub), crew.example.com/v2',
      },
    });
    const fromV9 = await w.handle(
      review('crew.example.com/v1', [{ ...structuredClone(v1), apiVersion: 'crew.example.com/v9' }]),
      ctx(),
    );
    expect(fromV9.response?.result.message).toBe(
      'conversion from crew.example.com/v9 is not supported for Captain; known versions: crew.example.com/v1 (hub), crew.example.com/v2',
    );
    const otherKind = await w.handle(
      review('crew.example.com/v2', [{ apiVersion: 'crew.example.com/v1', kind: 'Admiral', metadata: { name: 'a' } }]),
      ctx(),
    );
    expect(otherKind.response?.result).toEqual({
      status: 'Failure',
      message: 'no conversion is registered for Admiral.crew.example.com',
    });
    const otherGroup = await w.handle(review('other.example.com/v2', [structuredClone(v1)]), ctx());
    expect(otherGroup.response?.result.message).toBe(
      'cannot convert Captain.crew.example.com to other.example.com/v2: not the same API group',
    );
  });

  it('answers a conversion that throws as a failure, with "panic" for programming errors', async () => {
    const w = new ConversionWebhook();
    w.register(CaptainResource, [
      {
        resource: CaptainV2Resource,
        conversion: {
          convertTo: () => {
            throw new Error('cannot map size');
          },
          convertFrom: (h) => (h as unknown as { missing: { x: CaptainV2 } }).missing.x,
        },
      },
    ]);
    const to = await w.handle(review('crew.example.com/v1', [structuredClone(v2)]), ctx());
    expect(to.response?.result).toEqual({ status: 'Failure', message: 'cannot map size' });
    const from = await w.handle(review('crew.example.com/v2', [structuredClone(v1)]), ctx());
    expect(from.response?.result.status).toBe('Failure');
    expect(from.response?.result.message).toMatch(/^panic: .* \[recovered\]$/);
  });

  it('passes objects already in the desired version through unchanged', () => {
    expect(webhook().convertObject(structuredClone(v2), 'crew.example.com/v2')).toEqual(v2);
  });

  it('refuses bodies that are not ConversionReviews with HTTP 400', async () => {
    await expect(webhook().handle({ kind: 'AdmissionReview' }, ctx())).rejects.toSatisfy(
      (e) => e instanceof HttpError && e.code === 400,
    );
    await expect(
      webhook().handle({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview' }, ctx()),
    ).rejects.toThrow('conversion request is empty');
  });

  it('refuses registrations that cannot be right', () => {
    const w = webhook();
    expect(() => w.register(CaptainResource, [])).toThrow(
      'a conversion for Captain.crew.example.com is already registered',
    );
    const other = new ConversionWebhook();
    expect(() =>
      other.register(CaptainResource, [{ resource: CaptainResource, conversion: captainConversion as never }]),
    ).toThrow("is the hub's own version");
    expect(() =>
      other.register(CaptainResource, [
        { resource: defineResource({ ...CaptainV2Resource, kind: 'Admiral' }), conversion: captainConversion as never },
      ]),
    ).toThrow('is not a version of Captain.crew.example.com');
  });
});
