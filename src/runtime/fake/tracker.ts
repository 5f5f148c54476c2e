// The fake client's store: objects by resource and key, with the API server's bookkeeping (resourceVersion,
// generation, uid, creationTimestamp, generateName), its optimistic concurrency, the status subresource and
// finalizers. Every object goes in and comes out as a copy, as over the wire.
import { deepEqual, isObject, jsonClone, type JSONObject } from '../json/index.js';
import { resourceId } from '../rest/resource.js';
import { parseFieldSelector, parseSelector, SelectorParseError } from '../rest/selector.js';
import type {
  CreateOptions,
  DeleteOptions,
  KubeObject,
  ListOptions,
  ObjectKey,
  ObjectList,
  PatchOptions,
  Resource,
  UpdateOptions,
} from '../rest/types.js';
import { alreadyExists, badRequest, conflict, invalid, noSuchSubresource, notFound } from './errors.js';
import { applyPatch } from './patch.js';
import { isBuiltinGroup } from './patch-schema.js';
import { applyWithOwnership, recordUpdate, type OwnershipContext } from './managed-fields.js';
import { hasScale, scaleOf } from './scale.js';
import type { Scale } from '../rest/client.js';
import { ConfigurationError } from '../errors.js';
import { crypto } from '../internal/builtins.js';

const { randomInt, randomUUID } = crypto;

/** A field index, as mgr.getFieldIndexer().indexField registers one: list can then select on `field`. */
export interface FieldIndex {
  /** The kind indexed. */
  resource: Resource;
  /** The field name a field selector uses, e.g. 'spec.ship'. */
  field: string;
  /** The values an object is indexed under. */
  extract: (obj: KubeObject) => string[];
}

/** A field index of one kind, typed by it: `fieldIndex(Captains, 'spec.ship', (c) => [c.spec.ship])`. */
export function fieldIndex<T extends KubeObject>(
  resource: Resource<T>,
  field: string,
  extract: (obj: T) => string[],
): FieldIndex {
  return { resource, field, extract: extract as (obj: KubeObject) => string[] };
}

/** What the tracker needs to know about kinds beyond their descriptors. */
export interface TrackerOptions {
  /** Whether the kind's status is a subresource: update leaves its status alone and status() writes only it. */
  statusSubresource: (res: Resource) => boolean;
  /** Kinds that count metadata.generation (the API server does for custom resources and most built-ins with a spec). */
  generation: (res: Resource) => boolean;
  /** Field indexes that field selectors may use. */
  indexes: readonly FieldIndex[];
  /** The time creationTimestamp and deletionTimestamp are set from. */
  clock: () => Date;
}

type Stored = JSONObject & { metadata: JSONObject & { name: string } };

const NAME_CHARS = 'bcdfghjklmnpqrstvwxz2456789';

function keyString(namespace: string | undefined, name: string): string {
  return `${namespace ?? ''}/${name}`;
}

function rfc3339(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The object without metadata and status: what a change to bumps metadata.generation. */
function specOf(o: JSONObject): JSONObject {
  const { metadata: _m, status: _s, ...rest } = o;
  return rest;
}

/**
 * The fake client's store (controller-runtime's testing.ObjectTracker): objects by kind and key, with the API server's
 * resourceVersion, generation, status subresource, finalizer and selector semantics.
 */
export class ObjectTracker {
  private readonly kinds = new Map<string, Map<string, Stored>>();
  private readonly indexes = new Map<string, Map<string, (obj: KubeObject) => string[]>>();
  private revision = 1000;

  constructor(private readonly opts: TrackerOptions) {
    for (const ix of opts.indexes) {
      const fields = this.indexes.get(resourceId(ix.resource)) ?? new Map<string, (obj: KubeObject) => string[]>();
      if (fields.has(ix.field))
        throw new ConfigurationError(`indexer conflict: field ${ix.field} of ${ix.resource.kind} is already indexed`);
      fields.set(ix.field, ix.extract);
      this.indexes.set(resourceId(ix.resource), fields);
    }
  }

  /** Whether the kind was declared with a status subresource. */
  hasStatusSubresource(res: Resource): boolean {
    return this.opts.statusSubresource(res);
  }

  /** A copy of the stored object; throws a NotFound ApiError when there is none. */
  get<T extends KubeObject>(res: Resource<T>, key: ObjectKey): T {
    return this.out(this.find(res, key));
  }

  /**
   * The matching objects, sorted by key; label selectors, field selectors on name, namespace or an indexed field, and
   * limit/continue paging.
   */
  list<T extends KubeObject>(res: Resource<T>, opts: ListOptions = {}): ObjectList<T> {
    const labels = opts.labelSelector ? parseSelector(opts.labelSelector) : undefined;
    const fields = parseFieldSelector(opts.fieldSelector ?? '');
    const indexed = this.indexes.get(resourceId(res));
    for (const f of fields) {
      if (f.field !== 'metadata.name' && f.field !== 'metadata.namespace' && !indexed?.has(f.field)) {
        throw new SelectorParseError(
          `field selector ${f.field}${f.operator}${f.value} needs a field index (the fake client's indexes option)`,
        );
      }
    }
    const ns = res.namespaced ? opts.namespace : undefined;
    const items = [...(this.kinds.get(resourceId(res))?.values() ?? [])]
      .filter((o) => !ns || o.metadata.namespace === ns)
      .filter((o) => !labels || labels.matches((o.metadata.labels as Record<string, string> | undefined) ?? {}))
      .filter((o) =>
        fields.every((f) => {
          const values =
            f.field === 'metadata.name'
              ? [o.metadata.name]
              : f.field === 'metadata.namespace'
                ? [String(o.metadata.namespace ?? '')]
                : indexed!.get(f.field)!(o);
          return values.includes(f.value) === (f.operator === '=');
        }),
      )
      .sort((a, b) =>
        keyString(a.metadata.namespace as string, a.metadata.name).localeCompare(
          keyString(b.metadata.namespace as string, b.metadata.name),
        ),
      );
    // limit/continue: the continue token is the key of the last item returned.
    const after = opts.continue ? Buffer.from(opts.continue, 'base64url').toString() : undefined;
    const start = after
      ? items.findIndex((o) => keyString(o.metadata.namespace as string, o.metadata.name) > after)
      : 0;
    const rest = start < 0 ? [] : items.slice(start);
    const page = opts.limit && opts.limit > 0 ? rest.slice(0, opts.limit) : rest;
    const last = page.at(-1);
    const more = page.length < rest.length && last;
    return {
      apiVersion: res.apiVersion,
      kind: `${res.kind}List`,
      items: page.map((o) => this.out(o)),
      metadata: {
        resourceVersion: String(this.revision),
        ...(more
          ? {
              continue: Buffer.from(keyString(last.metadata.namespace as string, last.metadata.name)).toString(
                'base64url',
              ),
            }
          : {}),
      },
    };
  }

  /**
   * Stores a new object as the API server would: generateName, uid, creationTimestamp, generation, a new
   * resourceVersion; AlreadyExists when the key is taken.
   */
  create<T extends KubeObject>(res: Resource<T>, obj: T, opts: CreateOptions = {}): T {
    return this.insert(res, obj, opts, (stored) =>
      recordUpdate(undefined, stored, this.ownership(res, opts.fieldManager, '')),
    );
  }

  // create, with the new object's managedFields set by `own`.
  private insert<T extends KubeObject>(
    res: Resource<T>,
    obj: T,
    opts: CreateOptions,
    own: (stored: JSONObject) => void,
  ): T {
    const o = jsonClone(obj) as unknown as JSONObject;
    const meta: JSONObject = isObject(o.metadata) ? { ...o.metadata } : {};
    let name = typeof meta.name === 'string' ? meta.name : '';
    if (name === '' && typeof meta.generateName === 'string' && meta.generateName !== '') {
      name = meta.generateName + Array.from({ length: 5 }, () => NAME_CHARS[randomInt(NAME_CHARS.length)]).join('');
    }
    if (name === '') throw invalid(res, '', 'metadata.name', 'Required value: name or generateName is required');
    if (meta.resourceVersion) throw badRequest(res, name, 'resourceVersion should not be set on objects to be created');
    if (res.namespaced && !meta.namespace)
      throw badRequest(
        res,
        name,
        'the namespace of the provided object does not match the namespace sent on the request',
      );
    if (!res.namespaced) delete meta.namespace;
    const objects = this.objectsOf(res);
    const key = keyString(meta.namespace as string | undefined, name);
    if (objects.has(key)) throw alreadyExists(res, name);
    for (const k of ['deletionTimestamp', 'deletionGracePeriodSeconds', 'generation']) delete meta[k];
    Object.assign(meta, { name, uid: randomUUID(), creationTimestamp: rfc3339(this.opts.clock()) });
    if (this.opts.generation(res)) meta.generation = 1;
    const stored = { ...o, apiVersion: res.apiVersion, kind: res.kind, metadata: meta } as unknown as Stored;
    // The server ignores status on create when status is a subresource.
    if (this.hasStatusSubresource(res)) delete stored.status;
    own(stored);
    if (opts.dryRun) return this.out({ ...stored, metadata: { ...meta, name } });
    meta.resourceVersion = this.nextRevision();
    objects.set(key, stored);
    return this.out(stored);
  }

  /**
   * Replaces an object, keeping its status when the kind has a status subresource; Conflict on a stale resourceVersion.
   */
  update<T extends KubeObject>(res: Resource<T>, obj: T, opts: UpdateOptions = {}): T {
    const current = this.find(res, { namespace: obj.metadata?.namespace, name: obj.metadata?.name ?? '' });
    this.checkResourceVersion(res, current, obj.metadata?.resourceVersion, true);
    const next = jsonClone(obj) as unknown as JSONObject;
    if (this.hasStatusSubresource(res)) {
      if (current.status === undefined) delete next.status;
      else next.status = current.status;
    }
    recordUpdate(current, next, this.ownership(res, opts.fieldManager, ''));
    return this.write(res, current, next, opts.dryRun);
  }

  /** Replaces only the status of an object (the status subresource's update). */
  updateStatus<T extends KubeObject>(res: Resource<T>, obj: T, opts: UpdateOptions = {}): T {
    const name = obj.metadata?.name ?? '';
    if (!this.hasStatusSubresource(res)) throw noSuchSubresource(res, name, 'status');
    const current = this.find(res, { namespace: obj.metadata?.namespace, name });
    this.checkResourceVersion(res, current, obj.metadata?.resourceVersion, true);
    const status = (obj as unknown as JSONObject).status;
    const next: JSONObject = { ...jsonClone(current) };
    if (status === undefined) delete next.status;
    else next.status = jsonClone(status);
    recordUpdate(current, next, this.ownership(res, opts.fieldManager, 'status'));
    return this.write(res, current, next, opts.dryRun);
  }

  /**
   * Applies a merge, JSON, strategic or apply patch to the object or (subresource 'status') to its status; apply
   * creates a missing object.
   */
  patch<T extends KubeObject>(
    res: Resource<T>,
    key: ObjectKey,
    patch: unknown,
    opts: PatchOptions,
    subresource?: 'status',
  ): T {
    if (subresource && !this.hasStatusSubresource(res)) throw noSuchSubresource(res, key.name, subresource);
    if (opts.type === 'apply' && !opts.fieldManager)
      throw new ConfigurationError(
        "server-side apply needs a fieldManager: name one in the call (apply's fieldOwner) or set the client's fieldOwner",
      );
    const ctx = this.ownership(res, opts.fieldManager, subresource ?? '');
    const current = this.kinds
      .get(resourceId(res))
      ?.get(keyString(res.namespaced ? key.namespace : undefined, key.name));
    if (!current) {
      // Server-side apply creates what does not exist yet.
      if (opts.type === 'apply' && !subresource && isObject(patch)) {
        const meta = isObject(patch.metadata) ? patch.metadata : {};
        const config = {
          ...patch,
          metadata: { ...meta, name: key.name, ...(res.namespaced ? { namespace: key.namespace } : {}) },
        };
        const created = applyWithOwnership(undefined, config, false, ctx);
        const managedFields = (created.metadata as JSONObject).managedFields;
        return this.insert(res, created as unknown as T, { dryRun: opts.dryRun }, (stored) => {
          if (managedFields !== undefined) (stored.metadata as JSONObject).managedFields = managedFields;
        });
      }
      throw notFound(res, key.name);
    }
    let patched: JSONObject;
    if (opts.type === 'apply') {
      if (!isObject(patch)) throw badRequest(res, key.name, 'an apply patch must be a JSON object');
      patched = applyWithOwnership(jsonClone(current), patch, opts.force === true, ctx);
    } else {
      patched = applyPatch(res, key.name, jsonClone(current), patch, opts.type);
    }
    const meta = isObject(patched.metadata) ? patched.metadata : {};
    // A patch that names a resourceVersion is a precondition (MergeFromWithOptimisticLock).
    this.checkResourceVersion(
      res,
      current,
      typeof meta.resourceVersion === 'string' ? meta.resourceVersion : undefined,
      false,
    );
    let next: JSONObject = patched;
    if (subresource) {
      next = { ...jsonClone(current) };
      if (patched.status === undefined) delete next.status;
      else next.status = patched.status;
      // An apply's ownership comes with its status.
      const nextMeta = { ...(next.metadata as JSONObject) };
      if (meta.managedFields === undefined) delete nextMeta.managedFields;
      else nextMeta.managedFields = meta.managedFields;
      next.metadata = nextMeta;
    } else if (this.hasStatusSubresource(res)) {
      if (current.status === undefined) delete next.status;
      else next.status = current.status;
    }
    if (opts.type !== 'apply') recordUpdate(current, next, ctx);
    return this.write(res, current, next, opts.dryRun);
  }

  /** The Scale of an object of a kind with a scale subresource (Deployment, ReplicaSet, StatefulSet, RC). */
  getScale(res: Resource, key: ObjectKey): Scale {
    if (!hasScale(res)) throw noSuchSubresource(res, key.name, 'scale');
    return scaleOf(res, this.find(res, key));
  }

  /** Sets spec.replicas through the scale subresource; a resourceVersion in the Scale is a precondition. */
  updateScale(res: Resource, key: ObjectKey, scale: Scale, opts: UpdateOptions = {}): Scale {
    if (!hasScale(res)) throw noSuchSubresource(res, key.name, 'scale');
    const current = this.find(res, key);
    this.checkResourceVersion(res, current, scale.metadata?.resourceVersion, false);
    const next = jsonClone(current) as JSONObject;
    next.spec = { ...(isObject(next.spec) ? next.spec : {}), replicas: scale.spec?.replicas ?? 0 };
    recordUpdate(current, next, this.ownership(res, opts.fieldManager, 'scale'));
    const written = this.write(res, current, next, opts.dryRun);
    return scaleOf(res, written as unknown as JSONObject);
  }

  // Whose write this is and what it may own, for managedFields.
  private ownership(res: Resource, manager: string | undefined, subresource: string): OwnershipContext {
    return {
      manager,
      subresource,
      apiVersion: res.apiVersion,
      now: rfc3339(this.opts.clock()),
      statusSubresource: this.hasStatusSubresource(res),
    };
  }

  /** Deletes an object after checking preconditions; one with finalizers only gets a deletionTimestamp. */
  delete<T extends KubeObject>(res: Resource<T>, key: ObjectKey, opts: DeleteOptions = {}): void {
    const current = this.find(res, key);
    const pre = opts.preconditions;
    if (pre?.uid && pre.uid !== current.metadata.uid) {
      throw conflict(
        res,
        key.name,
        `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${String(current.metadata.uid)}`,
      );
    }
    if (pre?.resourceVersion && pre.resourceVersion !== current.metadata.resourceVersion) {
      throw conflict(
        res,
        key.name,
        `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${String(current.metadata.resourceVersion)}`,
      );
    }
    if (opts.dryRun) return;
    const finalizers = current.metadata.finalizers;
    if (Array.isArray(finalizers) && finalizers.length > 0) {
      // Finalizers hold the object: it is marked for deletion and goes once the last finalizer is removed.
      if (current.metadata.deletionTimestamp === undefined) {
        current.metadata.deletionTimestamp = rfc3339(this.opts.clock());
        current.metadata.deletionGracePeriodSeconds = 0;
        current.metadata.resourceVersion = this.nextRevision();
      }
      return;
    }
    this.objectsOf(res).delete(keyString(current.metadata.namespace as string | undefined, current.metadata.name));
  }

  private write<T extends KubeObject>(
    res: Resource<T>,
    current: Stored,
    candidate: JSONObject,
    dryRun: boolean | undefined,
  ): T {
    const cur = current.metadata;
    const meta: JSONObject = isObject(candidate.metadata) ? { ...candidate.metadata } : {};
    const name = cur.name;
    // What the server keeps whatever the client sends.
    for (const k of [
      'name',
      'namespace',
      'uid',
      'creationTimestamp',
      'deletionTimestamp',
      'deletionGracePeriodSeconds',
      'generation',
      'resourceVersion',
    ]) {
      if (cur[k] === undefined) delete meta[k];
      else meta[k] = cur[k];
    }
    const next = { ...candidate, apiVersion: res.apiVersion, kind: res.kind, metadata: meta } as unknown as Stored;
    if (cur.deletionTimestamp !== undefined) {
      const before = new Set((cur.finalizers as string[] | undefined) ?? []);
      const added = ((meta.finalizers as string[] | undefined) ?? []).filter((f) => !before.has(f));
      if (added.length > 0)
        throw invalid(
          res,
          name,
          'metadata.finalizers',
          `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers ${JSON.stringify(added)}`,
        );
    }
    // An update that changes nothing is not written: the resourceVersion stays.
    if (deepEqual(next, current)) return this.out(current);
    if (this.opts.generation(res) && !deepEqual(specOf(next), specOf(current)))
      meta.generation = (Number(cur.generation) || 0) + 1;
    if (dryRun) return this.out(next);
    meta.resourceVersion = this.nextRevision();
    const key = keyString(cur.namespace as string | undefined, name);
    const finalizers = meta.finalizers as string[] | undefined;
    if (meta.deletionTimestamp !== undefined && (!finalizers || finalizers.length === 0))
      this.objectsOf(res).delete(key);
    else this.objectsOf(res).set(key, next);
    return this.out(next);
  }

  private checkResourceVersion(res: Resource, current: Stored, rv: string | undefined, required: boolean): void {
    if (rv === undefined || rv === '') {
      // Custom resources refuse an update without a resourceVersion; most built-in kinds allow it.
      if (required && !this.builtin(res))
        throw invalid(
          res,
          current.metadata.name,
          'metadata.resourceVersion',
          'Invalid value: 0x0: must be specified for an update',
        );
      return;
    }
    if (rv !== current.metadata.resourceVersion) throw conflict(res, current.metadata.name);
  }

  private builtin(res: Resource): boolean {
    return isBuiltinGroup(res.group);
  }

  private find(res: Resource, key: ObjectKey): Stored {
    const found = this.kinds.get(resourceId(res))?.get(keyString(res.namespaced ? key.namespace : undefined, key.name));
    if (!found) throw notFound(res, key.name);
    return found;
  }

  private objectsOf(res: Resource): Map<string, Stored> {
    const id = resourceId(res);
    let objects = this.kinds.get(id);
    if (!objects) this.kinds.set(id, (objects = new Map()));
    return objects;
  }

  private nextRevision(): string {
    return String(++this.revision);
  }

  private out<T extends KubeObject>(o: Stored): T {
    return jsonClone(o) as unknown as T;
  }
}
