// controller-runtime's client.Client: the interface reconcilers and generated code are written against. RestClient
// (rest), CachedClient and FakeClient implement it. The per-call option types are metav1's and stay with rest, whose
// RestClient sends them; this module sits above rest and rest never imports it.
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

/** Writes to one subresource (status) of objects. */
export interface SubResourceWriter {
  /** Replaces the subresource of the object (PUT .../status); the object must carry its resourceVersion. */
  update<T extends KubeObject>(res: Resource<T>, obj: T, opts?: UpdateOptions): Promise<T>;
  /** Patches the subresource of the object named by key, in the given patch format. */
  patch<T extends KubeObject>(res: Resource<T>, key: ObjectKey, patch: unknown, opts: PatchOptions): Promise<T>;
  /** Server-side applies the subresource's fields of `config` (status: the fields under .status). */
  apply<T extends KubeObject>(res: Resource<T>, config: ApplyConfiguration<T>, opts?: ApplyOptions): Promise<T>;
}

/** The client generated code talks to; the uncached one is newClient(kc), the cached one the manager's. */
export interface Client {
  /** Reads one object; rejects with an ApiError (see isNotFound) when it does not exist. */
  get<T extends KubeObject>(res: Resource<T>, key: ObjectKey): Promise<T>;
  /** Lists objects of a resource, in opts.namespace or in all namespaces. */
  list<T extends KubeObject>(res: Resource<T>, opts?: ListOptions): Promise<ObjectList<T>>;
  /** Creates the object and resolves to what the server stored (with its uid, resourceVersion, defaults). */
  create<T extends KubeObject>(res: Resource<T>, obj: T, opts?: CreateOptions): Promise<T>;
  /**
   * Replaces the object (PUT); its metadata.resourceVersion makes a stale write fail with 409 Conflict (see
   * isConflict).
   */
  update<T extends KubeObject>(res: Resource<T>, obj: T, opts?: UpdateOptions): Promise<T>;
  /** Patches the object named by key, in the given patch format (merge, json, apply or strategic). */
  patch<T extends KubeObject>(res: Resource<T>, key: ObjectKey, patch: unknown, opts: PatchOptions): Promise<T>;
  /**
   * Server-side apply (controller-runtime's client.Apply): sends the fields of `config` this field owner means to own;
   * the server merges them, creates the object if needed, removes what the owner applied before and leaves out now, and
   * answers 409 Conflict when another manager owns a field with a different value, unless `force`.
   */
  apply<T extends KubeObject>(res: Resource<T>, config: ApplyConfiguration<T>, opts?: ApplyOptions): Promise<T>;
  /** Deletes the object named by key; finalizers may keep it (with a deletionTimestamp) after this resolves. */
  delete<T extends KubeObject>(res: Resource<T>, key: ObjectKey, opts?: DeleteOptions): Promise<void>;
  /** A writer for the status subresource (controller-runtime's client.Status()): updates and patches only .status. */
  status(): SubResourceWriter;
}
