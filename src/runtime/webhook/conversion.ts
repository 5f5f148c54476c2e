/**
 * ConversionReview handling as controller-runtime's pkg/webhook/conversion: each object is converted through the
 * hub (the storage version): spoke → convertTo → hub → convertFrom → desired spoke. Metadata is the source's (the
 * API server refuses any change but to labels and annotations, which a conversion may make).
 */
import { findInChain } from '../errors.js';
import type { KubeObject, ObjectMeta, Resource } from '../rest/types.js';
import { parseApiVersion } from '../rest/resource.js';
import { isPanic } from '../panic.js';
import { conversionRequestDecodeProblem, objectDecodeProblem } from './decode.js';
import { qualifiedKind } from './field.js';
import { HttpError, MAX_REVIEW_BYTES, type WebhookHandler, type WebhookRequestContext } from './handler.js';
import { conversionWebhookPanics } from './metrics.js';
import type { Conversion, ConversionRequest, ConversionResponse, ConversionReview } from './types.js';
import { ConfigurationError } from '../errors.js';

/** One spoke version of a kind and how it converts to and from the hub. */
export interface SpokeConversion<Hub extends KubeObject, Spoke extends KubeObject = KubeObject> {
  /** The spoke version's resource. */
  resource: Resource<Spoke>;
  /** Its conversions to and from the hub. */
  conversion: Conversion<Spoke, Hub>;
}

/** One SpokeConversion per spoke type, so each element's conversion is typed by its own resource. */
export type SpokeConversions<Hub extends KubeObject, Spokes extends KubeObject[]> = {
  readonly [K in keyof Spokes]: SpokeConversion<Hub, Spokes[K]>;
};

interface KindConversions {
  hub: Resource;
  spokes: Map<string, Conversion<KubeObject, KubeObject>>;
}

/** A conversion that cannot be done; its message becomes the review's failure message. */
export class ConversionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConversionError';
  }
}

/** True when `err` (or an error in its cause chain) is a ConversionError. */
export function isConversionError(err: unknown): err is ConversionError {
  return findInChain(err, ConversionError) !== undefined;
}

const REVIEW_VERSIONS = new Set(['apiextensions.k8s.io/v1', 'apiextensions.k8s.io/v1beta1']);

/** Keeps the source's metadata; a conversion may only change labels and annotations. */
function keepMetadata(source: ObjectMeta | undefined, converted: ObjectMeta | undefined): ObjectMeta | undefined {
  if (!source) return converted;
  const out: ObjectMeta = { ...source };
  if (converted?.labels !== undefined) out.labels = converted.labels;
  if (converted?.annotations !== undefined) out.annotations = converted.annotations;
  return out;
}

/** Serves /convert for every kind registered with it. */
export class ConversionWebhook implements WebhookHandler {
  /** controller-runtime's limit for conversion reviews, the same as for admission reviews. */
  readonly maxRequestBytes = MAX_REVIEW_BYTES;
  private readonly kinds = new Map<string, KindConversions>();

  /** Registers `hub` and its spokes; each kind once, each spoke in the hub's group and kind, and none the hub's version. */
  register<Hub extends KubeObject, Spokes extends KubeObject[]>(
    hub: Resource<Hub>,
    spokes: SpokeConversions<Hub, Spokes>,
  ): void {
    const key = qualifiedKind(hub);
    if (this.kinds.has(key)) throw new ConfigurationError(`a conversion for ${key} is already registered`);
    const entry: KindConversions = { hub, spokes: new Map() };
    for (const s of spokes) {
      if (s.resource.group !== hub.group || s.resource.kind !== hub.kind) {
        throw new ConfigurationError(
          `spoke ${qualifiedKind(s.resource)} ${s.resource.version} is not a version of ${key}`,
        );
      }
      if (s.resource.apiVersion === hub.apiVersion)
        throw new ConfigurationError(`spoke ${s.resource.apiVersion} of ${key} is the hub's own version`);
      if (entry.spokes.has(s.resource.apiVersion))
        throw new ConfigurationError(`spoke ${s.resource.apiVersion} of ${key} is registered twice`);
      entry.spokes.set(s.resource.apiVersion, s.conversion as unknown as Conversion<KubeObject, KubeObject>);
    }
    this.kinds.set(key, entry);
  }

  /** The hub resources of every kind registered. */
  hubs(): Resource[] {
    return [...this.kinds.values()].map((k) => k.hub);
  }

  /** Converts one object to `desiredAPIVersion`, through the hub. Throws ConversionError when it cannot. */
  convertObject(obj: KubeObject, desiredAPIVersion: string): KubeObject {
    if (!obj || typeof obj !== 'object' || typeof obj.apiVersion !== 'string' || typeof obj.kind !== 'string') {
      throw new ConversionError('an object to convert has no apiVersion or kind');
    }
    const src = parseApiVersion(obj.apiVersion);
    const dst = parseApiVersion(desiredAPIVersion);
    const key = qualifiedKind({ group: src.group, kind: obj.kind });
    const entry = this.kinds.get(key);
    if (!entry) throw new ConversionError(`no conversion is registered for ${key}`);
    if (dst.group !== src.group) {
      throw new ConversionError(`cannot convert ${key} to ${desiredAPIVersion}: not the same API group`);
    }
    if (obj.apiVersion === desiredAPIVersion) return obj;
    const hubVersion = entry.hub.apiVersion;
    const known = (): string => [`${hubVersion} (hub)`, ...entry.spokes.keys()].join(', ');
    const from = obj.apiVersion === hubVersion ? undefined : entry.spokes.get(obj.apiVersion);
    if (obj.apiVersion !== hubVersion && !from) {
      throw new ConversionError(
        `conversion from ${obj.apiVersion} is not supported for ${obj.kind}; known versions: ${known()}`,
      );
    }
    const to = desiredAPIVersion === hubVersion ? undefined : entry.spokes.get(desiredAPIVersion);
    if (desiredAPIVersion !== hubVersion && !to) {
      throw new ConversionError(
        `conversion to ${desiredAPIVersion} is not supported for ${obj.kind}; known versions: ${known()}`,
      );
    }
    const kind = obj.kind;
    // The converters may change what they are given (the request is not read again), but the source's metadata
    // must survive whatever they do: only it is copied, not a whole large object.
    const meta = obj.metadata && structuredClone(obj.metadata);
    let hub = from ? from.convertTo(obj) : obj;
    hub = { ...hub, apiVersion: hubVersion, kind, metadata: keepMetadata(meta, hub.metadata) };
    const out = to ? to.convertFrom(hub) : hub;
    // Written as JSON by the server: members a converter left undefined are absent, as with Go's json.Marshal.
    return { ...out, apiVersion: desiredAPIVersion, kind, metadata: keepMetadata(meta, out.metadata) };
  }

  /** Converts every object of a request; the first failure fails the whole review, as the API server expects. */
  convert(req: ConversionRequest): Omit<ConversionResponse, 'uid'> {
    try {
      const convertedObjects = req.objects.map((o, i) => {
        // As Go decodes each object before converting it: a malformed one fails the review with what is wrong, not
        // with a "panic" from a converter that met metadata: 5.
        const bad = objectDecodeProblem(o, `request.objects[${i}]`);
        if (bad) throw new ConversionError(`cannot decode the object: ${bad}`);
        return this.convertObject(o, req.desiredAPIVersion);
      });
      return { convertedObjects, result: { status: 'Success' } };
    } catch (err) {
      let message = err instanceof Error ? err.message : String(err);
      if (isPanic(err)) {
        conversionWebhookPanics.inc();
        message = `panic: ${message} [recovered]`;
      }
      return { convertedObjects: [], result: { status: 'Failure', message } };
    }
  }

  async handle(body: unknown, ctx: WebhookRequestContext): Promise<ConversionReview> {
    const review = body as Partial<ConversionReview> | null;
    if (
      !review ||
      typeof review !== 'object' ||
      review.kind !== 'ConversionReview' ||
      typeof review.apiVersion !== 'string' ||
      !REVIEW_VERSIONS.has(review.apiVersion)
    ) {
      throw new HttpError(400, 'want a ConversionReview of apiextensions.k8s.io/v1');
    }
    const req = review.request;
    if (!req || typeof req !== 'object') throw new HttpError(400, 'conversion request is empty');
    // As Go's decoding of the review fails before any conversion: a uid that is not a string is a 400, not a throw.
    const bad = conversionRequestDecodeProblem(req as unknown as Record<string, unknown>);
    if (bad) throw new HttpError(400, `cannot decode the request: ${bad}`);
    const response = { uid: req.uid ?? '', ...this.convert(req) };
    if (response.result.status === 'Failure') {
      ctx.log.error(new ConversionError(response.result.message ?? ''), 'failed to convert', {
        uid: req.uid,
        desiredAPIVersion: req.desiredAPIVersion,
      });
    }
    return { apiVersion: review.apiVersion!, kind: 'ConversionReview', response };
  }
}
