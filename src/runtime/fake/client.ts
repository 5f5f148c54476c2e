// A Client for reconciler unit tests that keeps objects in memory (controller-runtime's pkg/client/fake).
import type { PartialObjectMetadata, Scale, SubResourceClient } from '../rest/client.js';
import { resourceId } from '../rest/resource.js';
import { newScheme, type Scheme } from '../rest/scheme.js';
import type { Client, SubResourceWriter } from '../client/client.js';
import type {
  ApplyConfiguration,
  ApplyOptions,
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
import { ObjectTracker, type FieldIndex } from './tracker.js';
import { isBuiltinGroup } from './patch-schema.js';
import { ConfigurationError } from '../errors.js';
import { keyOf } from '../client/patch.js';
import { applyPatch } from './patch.js';
import type { JSONObject } from '../json/index.js';

// The scale subresource's kind, whose schema a strategic merge of a scale follows.
const SCALE_KIND = { apiVersion: 'autoscaling/v1', kind: 'Scale' };

// Server-side apply of a Scale is not modelled (see subResource).
function noScaleApply(res: Resource, key: ObjectKey): ConfigurationError {
  return new ConfigurationError(
    `the fake client does not model server-side apply of ${res.kind} ${key.name}'s scale; patch it or test on envtest`,
  );
}

/**
 * Functions that run instead of the fake client's own methods, to inject errors or observe calls
 * (controller-runtime's interceptor.Funcs). Each gets the fake client without interceptors as `client`, to call
 * through to it.
 */
export interface Interceptors {
  /** Runs instead of get. */
  get?(client: FakeClient, res: Resource, key: ObjectKey): Promise<KubeObject>;
  /** Runs instead of list. */
  list?(client: FakeClient, res: Resource, opts?: ListOptions): Promise<ObjectList>;
  /** Runs instead of create. */
  create?(client: FakeClient, res: Resource, obj: KubeObject, opts?: CreateOptions): Promise<KubeObject>;
  /** Runs instead of update. */
  update?(client: FakeClient, res: Resource, obj: KubeObject, opts?: UpdateOptions): Promise<KubeObject>;
  /** Runs instead of patch. */
  patch?(client: FakeClient, res: Resource, key: ObjectKey, patch: unknown, opts: PatchOptions): Promise<KubeObject>;
  /** Runs instead of apply. */
  apply?(
    client: FakeClient,
    res: Resource,
    config: ApplyConfiguration<KubeObject>,
    opts?: ApplyOptions,
  ): Promise<KubeObject>;
  /** Runs instead of delete. */
  delete?(client: FakeClient, res: Resource, key: ObjectKey, opts?: DeleteOptions): Promise<void>;
  /** status().update. */
  subResourceUpdate?(
    client: FakeClient,
    subResource: 'status',
    res: Resource,
    obj: KubeObject,
    opts?: UpdateOptions,
  ): Promise<KubeObject>;
  /** status().patch. */
  subResourcePatch?(
    client: FakeClient,
    subResource: 'status',
    res: Resource,
    key: ObjectKey,
    patch: unknown,
    opts: PatchOptions,
  ): Promise<KubeObject>;
  /** status().apply. */
  subResourceApply?(
    client: FakeClient,
    subResource: 'status',
    res: Resource,
    config: ApplyConfiguration<KubeObject>,
    opts?: ApplyOptions,
  ): Promise<KubeObject>;
}

/** What a fake client starts with (controller-runtime's fake.ClientBuilder). */
export interface FakeClientOptions {
  /** Objects present from the start; each needs apiVersion and kind that `scheme` knows. */
  objects?: KubeObject[];
  /** Resolves the initial objects' kinds; default the built-in kinds. Add your own: `newScheme().add(CaptainResource)`. */
  scheme?: Scheme;
  /**
   * Kinds whose status is a subresource (`+kubebuilder:subresource:status`): update() leaves their status alone and
   * status() writes only it. Built-in kinds with a status (Deployment, Pod, ...) always have one, as in
   * controller-runtime's fake client; list your own kinds here.
   */
  statusSubresource?: Resource[];
  /** Field indexes, so that list can select on those fields as the manager's cached client does. */
  indexes?: FieldIndex[];
  /** Error injection and call observation. */
  interceptors?: Interceptors;
  /** The time for creationTimestamp, deletionTimestamp and managedFields; default the system clock. */
  clock?: () => Date;
  /** The field manager of writes that name none, as the real client's `fieldOwner` option (required for apply then). */
  fieldOwner?: string;
}

// Built-in kinds whose status is a subresource, by group/kind.
const BUILTIN_STATUS = new Set([
  '/Namespace',
  '/Node',
  '/Pod',
  '/Service',
  '/PersistentVolume',
  '/PersistentVolumeClaim',
  '/ReplicationController',
  'apps/Deployment',
  'apps/StatefulSet',
  'apps/DaemonSet',
  'apps/ReplicaSet',
  'batch/Job',
  'batch/CronJob',
  'networking.k8s.io/Ingress',
  'policy/PodDisruptionBudget',
  'autoscaling/HorizontalPodAutoscaler',
  'apiextensions.k8s.io/CustomResourceDefinition',
]);

/**
 * An in-memory Client with the API server's semantics where reconcilers depend on them: resourceVersion and
 * optimistic concurrency (409 Conflict on a stale resourceVersion), the status subresource, generateName,
 * metadata.generation, deletionTimestamp with finalizers, label and field selectors (fields through indexes), and
 * merge and JSON patches, strategic merge patches of built-in kinds (lists merged by the patchStrategy and
 * patchMergeKey of Kubernetes' Go types, with the $patch, $setElementOrder, $retainKeys and $deleteFromPrimitiveList
 * directives; 415 UnsupportedMediaType for a custom resource), and server-side apply with field ownership:
 * managedFields, the removal of fields an owner stops applying, and the server's 409 Conflict naming the managers and
 * fields (force takes them). Shared contract tests run the same checks against it and a real API server.
 *
 * Not modelled, as in controller-runtime's fake: admission (webhooks, defaulting, validation against the CRD schema),
 * garbage collection of owned objects, and namespaces' existence. Server-side apply owns lists whole (atomic, a CRD's
 * default), where the server merges built-in kinds' keyed lists, finalizers and ownerReferences item by item.
 * Reads see every write at once; the manager's cached client may lag.
 * @example
 * A reconciler's unit test without an API server: the fake starts with the objects given, and keeps resourceVersions
 * and conflicts as the API server does.
 * ```ts
 * import { isConflict, type k8s } from '@kubescaffold/runtime';
 * import { FakeClient } from '@kubescaffold/runtime/fake';
 * import { ConfigMaps } from '@kubescaffold/runtime/rest';
 *
 * const settings: k8s.V1ConfigMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings', namespace: 'default' }, data: { mode: 'a' } };
 * const client = new FakeClient({ objects: [settings] });
 * const first = await client.get(ConfigMaps, { namespace: 'default', name: 'settings' });
 * await client.update(ConfigMaps, { ...first, data: { mode: 'b' } });
 * // `first` now holds a stale resourceVersion: a second update from it conflicts.
 * await client.update(ConfigMaps, { ...first, data: { mode: 'c' } }).catch((err: unknown) => console.log(isConflict(err) ? 'conflict' : err));
 * console.log((await client.get(ConfigMaps, { namespace: 'default', name: 'settings' })).data?.mode);
 * // Output:
 * // conflict
 * // b
 * ```
 */
export class FakeClient implements Client {
  private readonly tracker: ObjectTracker;
  private readonly interceptors: Interceptors;
  private readonly plain: FakeClient;
  private readonly fieldOwner: string | undefined;

  constructor(opts: FakeClientOptions = {}, tracker?: ObjectTracker) {
    const withStatus = new Set((opts.statusSubresource ?? []).map(resourceId));
    const hasStatus = (res: Resource): boolean =>
      withStatus.has(resourceId(res)) || BUILTIN_STATUS.has(`${res.group}/${res.kind}`);
    this.tracker =
      tracker ??
      new ObjectTracker({
        statusSubresource: hasStatus,
        // Custom resources count generations, as do built-in kinds with a spec and a status.
        generation: (res) => !isBuiltinGroup(res.group) || hasStatus(res),
        indexes: opts.indexes ?? [],
        clock: opts.clock ?? (() => new Date()),
      });
    this.interceptors = opts.interceptors ?? {};
    this.fieldOwner = opts.fieldOwner;
    this.plain = opts.interceptors ? new FakeClient({ fieldOwner: opts.fieldOwner }, this.tracker) : this;
    if (!tracker) {
      const scheme = opts.scheme ?? newScheme();
      for (const obj of opts.objects ?? []) {
        const res = scheme.resourceForObject(obj);
        if (!res)
          throw new ConfigurationError(
            `fake client: no resource for ${obj.apiVersion ?? '(no apiVersion)'} ${obj.kind ?? '(no kind)'} ${obj.metadata?.name ?? ''}; add its descriptor to the scheme option`,
          );
        const { resourceVersion: _rv, ...metadata } = obj.metadata ?? {};
        this.tracker.create(res, { ...obj, metadata });
        // Initial objects keep the status they were given, as controller-runtime's WithObjects does.
        const status = (obj as { status?: unknown }).status;
        if (status !== undefined && this.tracker.hasStatusSubresource(res)) {
          const created = this.tracker.get(res, { namespace: obj.metadata?.namespace, name: obj.metadata?.name ?? '' });
          this.tracker.updateStatus(res, { ...created, status } as KubeObject);
        }
      }
    }
  }

  get<T extends KubeObject>(res: Resource<T>, key: ObjectKey): Promise<T> {
    if (this.interceptors.get) return this.interceptors.get(this.plain, res, key) as Promise<T>;
    return this.settle(() => this.tracker.get(res, key));
  }

  list<T extends KubeObject>(res: Resource<T>, opts?: ListOptions): Promise<ObjectList<T>> {
    if (this.interceptors.list) return this.interceptors.list(this.plain, res, opts) as Promise<ObjectList<T>>;
    return this.settle(() => this.tracker.list(res, opts));
  }

  create<T extends KubeObject>(res: Resource<T>, obj: T, opts?: CreateOptions): Promise<T> {
    if (this.interceptors.create) return this.interceptors.create(this.plain, res, obj, opts) as Promise<T>;
    return this.settle(() => this.tracker.create(res, obj, this.owned(opts)));
  }

  update<T extends KubeObject>(res: Resource<T>, obj: T, opts?: UpdateOptions): Promise<T> {
    if (this.interceptors.update) return this.interceptors.update(this.plain, res, obj, opts) as Promise<T>;
    return this.settle(() => this.tracker.update(res, obj, this.owned(opts)));
  }

  patch<T extends KubeObject>(res: Resource<T>, key: ObjectKey, patch: unknown, opts: PatchOptions): Promise<T> {
    if (this.interceptors.patch) return this.interceptors.patch(this.plain, res, key, patch, opts) as Promise<T>;
    return this.settle(() => this.tracker.patch(res, key, patch, this.owned(opts)));
  }

  apply<T extends KubeObject>(res: Resource<T>, config: ApplyConfiguration<T>, opts?: ApplyOptions): Promise<T> {
    if (this.interceptors.apply)
      return this.interceptors.apply(this.plain, res, config as ApplyConfiguration<KubeObject>, opts) as Promise<T>;
    return this.settle(() =>
      this.tracker.patch(res, keyOf(config as unknown as KubeObject), config, this.applyOptions(opts)),
    );
  }

  delete<T extends KubeObject>(res: Resource<T>, key: ObjectKey, opts?: DeleteOptions): Promise<void> {
    if (this.interceptors.delete) return this.interceptors.delete(this.plain, res, key, opts);
    return this.settle(() => this.tracker.delete(res, key, opts));
  }

  status(): SubResourceWriter {
    return {
      update: <T extends KubeObject>(res: Resource<T>, obj: T, opts?: UpdateOptions): Promise<T> => {
        if (this.interceptors.subResourceUpdate)
          return this.interceptors.subResourceUpdate(this.plain, 'status', res, obj, opts) as Promise<T>;
        return this.settle(() => this.tracker.updateStatus(res, obj, this.owned(opts)));
      },
      patch: <T extends KubeObject>(
        res: Resource<T>,
        key: ObjectKey,
        patch: unknown,
        opts: PatchOptions,
      ): Promise<T> => {
        if (this.interceptors.subResourcePatch)
          return this.interceptors.subResourcePatch(this.plain, 'status', res, key, patch, opts) as Promise<T>;
        return this.settle(() => this.tracker.patch(res, key, patch, this.owned(opts), 'status'));
      },
      apply: <T extends KubeObject>(
        res: Resource<T>,
        config: ApplyConfiguration<T>,
        opts?: ApplyOptions,
      ): Promise<T> => {
        if (this.interceptors.subResourceApply)
          return this.interceptors.subResourceApply(
            this.plain,
            'status',
            res,
            config as ApplyConfiguration<KubeObject>,
            opts,
          ) as Promise<T>;
        return this.settle(() =>
          this.tracker.patch(res, keyOf(config as unknown as KubeObject), config, this.applyOptions(opts), 'status'),
        );
      },
    };
  }

  // The call's options with the client's field owner filled in.
  private owned<O extends { fieldManager?: string }>(opts: O | undefined): O {
    return { ...opts, fieldManager: opts?.fieldManager ?? this.fieldOwner } as O;
  }

  private applyOptions(opts: ApplyOptions = {}): PatchOptions {
    return { type: 'apply', fieldManager: opts.fieldOwner ?? this.fieldOwner, force: opts.force, dryRun: opts.dryRun };
  }

  /**
   * A client for one subresource, as RestClient's: 'status' (status()'s writes, and get), or 'scale' of Deployments,
   * ReplicaSets, StatefulSets and ReplicationControllers (an autoscaling/v1 Scale read from and written to
   * spec.replicas; apply is not modelled there).
   */
  subResource(name: 'status' | 'scale'): SubResourceClient {
    if (name === 'status') return { get: (res, key) => this.get(res, key), ...this.status() };
    const writeScale = <T extends KubeObject>(res: Resource<T>, key: ObjectKey, scale: Scale, opts?: UpdateOptions) =>
      this.settle(() => this.tracker.updateScale(res, key, scale, this.owned(opts)) as unknown as T);
    return {
      get: <T extends KubeObject>(res: Resource<T>, key: ObjectKey) =>
        this.settle(() => this.tracker.getScale(res, key) as unknown as T),
      update: <T extends KubeObject>(res: Resource<T>, obj: T, opts?: UpdateOptions) =>
        writeScale(res, keyOf(obj), obj as Scale, opts),
      patch: async <T extends KubeObject>(res: Resource<T>, key: ObjectKey, patch: unknown, opts: PatchOptions) => {
        const current = await this.getScale(res, key);
        if (opts.type === 'apply') throw noScaleApply(res, key);
        const next = applyPatch(res, key.name, current as unknown as JSONObject, patch, opts.type, SCALE_KIND);
        return writeScale(res, key, next as unknown as Scale, opts);
      },
      apply: <T extends KubeObject>(res: Resource<T>, config: ApplyConfiguration<T>) =>
        Promise.reject(noScaleApply(res, keyOf(config as unknown as KubeObject))),
    };
  }

  /** The scale subresource of the object named by key (RestClient.getScale). */
  getScale(res: Resource, key: ObjectKey): Promise<Scale> {
    return this.settle(() => this.tracker.getScale(res, key));
  }

  /** Replaces the scale subresource: sets spec.replicas (RestClient.updateScale). */
  updateScale(res: Resource, key: ObjectKey, scale: Scale): Promise<Scale> {
    return this.settle(() => this.tracker.updateScale(res, key, scale, this.owned({})));
  }

  /** Sets spec.replicas through the scale subresource (RestClient.scale). */
  scale(res: Resource, key: ObjectKey, replicas: number): Promise<Scale> {
    return this.subResource('scale').patch(res as Resource<Scale>, key, { spec: { replicas } }, { type: 'merge' });
  }

  /** One object's metadata (as the manager's client reads metadata-only watches). */
  async getMetadata(res: Resource, key: ObjectKey): Promise<PartialObjectMetadata> {
    const o = await this.get(res, key);
    return { apiVersion: 'meta.k8s.io/v1', kind: 'PartialObjectMetadata', metadata: o.metadata ?? {} };
  }

  /** The metadata of a kind's objects. */
  async listMetadata(res: Resource, opts?: ListOptions): Promise<ObjectList<PartialObjectMetadata>> {
    const list = await this.list(res, opts);
    return {
      apiVersion: 'meta.k8s.io/v1',
      kind: 'PartialObjectMetadataList',
      items: list.items.map((o) => ({
        apiVersion: 'meta.k8s.io/v1',
        kind: 'PartialObjectMetadata',
        metadata: o.metadata ?? {},
      })),
      metadata: list.metadata,
    };
  }

  // Settles asynchronously like a real client, so callers cannot come to depend on synchronous completion.
  private async settle<R>(op: () => R): Promise<R> {
    await Promise.resolve();
    return op();
  }
}
