import type { V1ListMeta, V1ObjectMeta, V1Status } from '@kubernetes/client-node';

/** Object metadata, as @kubernetes/client-node models it (timestamps arrive as RFC 3339 strings on the wire). */
export type ObjectMeta = V1ObjectMeta;
export type ListMeta = V1ListMeta;
/** The server's Status object, kept on every ApiError. */
export type Status = V1Status;

export interface TypeMeta {
  apiVersion?: string;
  kind?: string;
}

/** Any Kubernetes object as plain JSON. */
export interface KubeObject extends TypeMeta {
  metadata?: ObjectMeta;
}

// Type-only key: lets Resource<T> carry T so `client.get(CaptainResource, key)` infers Captain.
declare const objectType: unique symbol;

/** A typed descriptor of one API resource: enough to build its URLs and to name its kind. */
export interface Resource<T extends KubeObject = KubeObject> {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  readonly namespaced: boolean;
  /** 'group/version', or just 'version' for the core group. */
  readonly apiVersion: string;
  readonly [objectType]?: T;
}

export interface ResourceDefinition {
  group: string;
  version: string;
  kind: string;
  plural: string;
  namespaced: boolean;
}

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

export interface ObjectKey {
  namespace?: string;
  name: string;
}

export interface ListOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: 'NotOlderThan' | 'Exact';
  /** Server-side timeout for the list call. */
  timeoutSeconds?: number;
}

export interface ObjectList<T extends KubeObject = KubeObject> {
  apiVersion?: string;
  kind?: string;
  items: T[];
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
}

export interface WatchOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
  resourceVersionMatch?: 'NotOlderThan' | 'Exact';
  allowWatchBookmarks?: boolean;
  /** Server-side bound on the watch's length. */
  timeoutSeconds?: number;
  /** WatchList: the server streams the current state first, then a bookmark annotated k8s.io/initial-events-end. */
  sendInitialEvents?: boolean;
  /** Ends the watch (the iterator returns) when aborted. */
  signal?: AbortSignal;
  /** Drop the connection with a WatchIdleError when no bytes arrive for this long (ms); 0 disables. */
  idleTimeoutMs?: number;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export type WatchEvent<T extends KubeObject = KubeObject> =
  | { type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK'; object: T }
  | { type: 'ERROR'; object: Status };

export interface CreateOptions {
  dryRun?: boolean;
  fieldManager?: string;
  fieldValidation?: 'Ignore' | 'Warn' | 'Strict';
}

export type UpdateOptions = CreateOptions;

export type PatchType = 'merge' | 'json' | 'apply' | 'strategic';

export interface PatchOptions {
  type: PatchType;
  fieldManager?: string;
  /** Server-side apply only: take ownership of conflicting fields. */
  force?: boolean;
  dryRun?: boolean;
  fieldValidation?: 'Ignore' | 'Warn' | 'Strict';
}

export interface Preconditions {
  uid?: string;
  resourceVersion?: string;
}

export interface DeleteOptions {
  propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
  preconditions?: Preconditions;
  gracePeriodSeconds?: number;
  dryRun?: boolean;
}

export type DeleteCollectionOptions = Omit<ListOptions, 'limit' | 'continue'> & DeleteOptions;

/** Writes to one subresource (status) of objects. */
export interface SubResourceWriter {
  update<T extends KubeObject>(res: Resource<T>, obj: T, opts?: UpdateOptions): Promise<T>;
  patch<T extends KubeObject>(res: Resource<T>, key: ObjectKey, patch: unknown, opts: PatchOptions): Promise<T>;
}

/** The client generated code talks to; the uncached one is newClient(kc), the cached one the manager's. */
export interface Client {
  get<T extends KubeObject>(res: Resource<T>, key: ObjectKey): Promise<T>;
  list<T extends KubeObject>(res: Resource<T>, opts?: ListOptions): Promise<ObjectList<T>>;
  create<T extends KubeObject>(res: Resource<T>, obj: T, opts?: CreateOptions): Promise<T>;
  update<T extends KubeObject>(res: Resource<T>, obj: T, opts?: UpdateOptions): Promise<T>;
  patch<T extends KubeObject>(res: Resource<T>, key: ObjectKey, patch: unknown, opts: PatchOptions): Promise<T>;
  delete<T extends KubeObject>(res: Resource<T>, key: ObjectKey, opts?: DeleteOptions): Promise<void>;
  status(): SubResourceWriter;
}
