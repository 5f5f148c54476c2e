import type { V1ListMeta, V1ObjectMeta, V1Status } from '@kubernetes/client-node';

/** Object metadata, as @kubernetes/client-node models it (timestamps arrive as RFC 3339 strings on the wire). */
export type ObjectMeta = V1ObjectMeta;
/**
 * A list's metadata (resourceVersion, continue token, remainingItemCount): metav1.ListMeta, as @kubernetes/client-node
 * models it.
 */
export type ListMeta = V1ListMeta;
/** The server's Status object, kept on every ApiError. */
export type Status = V1Status;

/**
 * An object's apiVersion and kind (metav1.TypeMeta). Objects read from the server carry both; typed lists' items may
 * not.
 */
export interface TypeMeta {
  /** 'group/version' of the object's schema, e.g. 'apps/v1' or 'v1'. */
  apiVersion?: string;
  /** The object's kind, e.g. 'Deployment'. */
  kind?: string;
}

/** Any Kubernetes object as plain JSON. */
export interface KubeObject extends TypeMeta {
  /** Name, namespace, labels, annotations, resourceVersion, owner references, finalizers, ... */
  metadata?: ObjectMeta;
}

// Type-only key: lets Resource<T> carry T so `client.get(CaptainResource, key)` infers Captain.
declare const objectType: unique symbol;

/** A typed descriptor of one API resource: enough to build its URLs and to name its kind. */
export interface Resource<T extends KubeObject = KubeObject> {
  /** API group; '' for the core group. */
  readonly group: string;
  /** API version within the group, e.g. 'v1'. */
  readonly version: string;
  /** The kind its objects carry, e.g. 'Captain'. */
  readonly kind: string;
  /** The lower-case plural resource name in URLs, e.g. 'captains'. */
  readonly plural: string;
  /** Whether objects live in a namespace (false for cluster-scoped kinds). */
  readonly namespaced: boolean;
  /** 'group/version', or just 'version' for the core group. */
  readonly apiVersion: string;
  /** Type-only: carries T so that client calls infer the object type; never set at run time. */
  readonly [objectType]?: T;
}

/**
 * The fields {@link defineResource} takes to make a {@link Resource}: group ('' for the core group), version, kind,
 * plural resource name, and whether it is namespaced.
 */
export interface ResourceDefinition {
  /** API group; '' for the core group. */
  group: string;
  /** API version within the group. */
  version: string;
  /** The kind. */
  kind: string;
  /** The lower-case plural resource name. */
  plural: string;
  /** Whether objects live in a namespace. */
  namespaced: boolean;
}

/** A kind in a group version (schema.GroupVersionKind); the core group is ''. */
export interface GroupVersionKind {
  /** API group; '' for the core group. */
  group: string;
  /** API version within the group. */
  version: string;
  /** The kind. */
  kind: string;
}

/** A resource (plural, lower case) in a group version (schema.GroupVersionResource); the core group is ''. */
export interface GroupVersionResource {
  /** API group; '' for the core group. */
  group: string;
  /** API version within the group. */
  version: string;
  /** The lower-case plural resource name. */
  resource: string;
}

/**
 * Names one object: its namespace (omitted for cluster-scoped objects) and name (controller-runtime's client.ObjectKey,
 * types.NamespacedName).
 */
export interface ObjectKey {
  /** The object's namespace; omitted for cluster-scoped objects. */
  namespace?: string;
  /** The object's name. */
  name: string;
}

/**
 * Options of a list call (metav1.ListOptions plus the namespace to list in; none means all namespaces): selectors,
 * paging with limit and continue, and resourceVersion semantics.
 */
export interface ListOptions {
  /** List in this namespace; all namespaces when unset (namespaced kinds only). */
  namespace?: string;
  /** Only objects whose labels match, e.g. 'app=crew,tier!=db'. */
  labelSelector?: string;
  /** Only objects whose fields match, e.g. 'metadata.name=x' (the server supports few fields per kind). */
  fieldSelector?: string;
  /**
   * Only objects in these hash ranges (KEP-5866, alpha gate ShardedListAndWatch), e.g.
   * `shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')`. A server that honours it echoes
   * it in the list's metadata.shardInfo; one that does not ignores it.
   */
  shardSelector?: string;
  /** At most this many items per page; the list's metadata.continue fetches the next. */
  limit?: number;
  /** The continue token of the previous page. */
  continue?: string;
  /** Which state to list: '0' accepts any (possibly cached) state; unset means the latest, read from etcd. */
  resourceVersion?: string;
  /** How resourceVersion is applied: at least that recent (NotOlderThan), or exactly that one (Exact). */
  resourceVersionMatch?: 'NotOlderThan' | 'Exact';
  /** Server-side timeout for the list call. */
  timeoutSeconds?: number;
}

/**
 * The result of a list call: the items and the list's metadata (resourceVersion to watch from, continue token for the
 * next page).
 */
export interface ObjectList<T extends KubeObject = KubeObject> {
  /** 'group/version' of the list. */
  apiVersion?: string;
  /** The list's kind, e.g. 'CaptainList'. */
  kind?: string;
  /** The objects. */
  items: T[];
  /** The resourceVersion to watch from, the continue token of the next page, and how many items remain. */
  metadata: {
    resourceVersion?: string;
    continue?: string;
    remainingItemCount?: number;
    /** The shardSelector the server applied (KEP-5866); absent when it applied none. */
    shardInfo?: { selector?: string };
  };
}

/**
 * Options of a watch call (metav1.ListOptions with watch=true plus the namespace, an abort signal and an idle timeout).
 */
export interface WatchOptions {
  /** Watch this namespace; all namespaces when unset (namespaced kinds only). */
  namespace?: string;
  /** Only objects whose labels match. */
  labelSelector?: string;
  /** Only objects whose fields match. */
  fieldSelector?: string;
  /** Only objects in these hash ranges (see ListOptions.shardSelector); a server without the feature ignores it. */
  shardSelector?: string;
  /**
   * Start after this resourceVersion (usually a list's); unset starts with synthetic ADDED events for the current
   * state.
   */
  resourceVersion?: string;
  /** How resourceVersion is applied; with sendInitialEvents it must be NotOlderThan. */
  resourceVersionMatch?: 'NotOlderThan' | 'Exact';
  /** Ask for BOOKMARK events, which carry only a newer resourceVersion to resume from. */
  allowWatchBookmarks?: boolean;
  /** Server-side bound on the watch's length. */
  timeoutSeconds?: number;
  /** WatchList: the server streams the current state first, then a bookmark annotated k8s.io/initial-events-end. */
  sendInitialEvents?: boolean;
  /** Ends the watch (the iterator returns) when aborted. */
  signal?: AbortSignal;
  /** Drop the connection with a WatchIdleError when no bytes arrive for this long (ms); 0 disables. */
  idleTimeoutMs?: number;
  /**
   * Called once the server has accepted the watch (its response has begun), before any event: a watch that has no
   * event to send is up all the same.
   */
  onOpen?: () => void;
}

/**
 * The type of a watch event (watch.EventType): ADDED, MODIFIED, DELETED, BOOKMARK (a resourceVersion checkpoint) or
 * ERROR.
 */
export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** One event of a watch stream (watch.Event): an object, or for ERROR the server's Status. */
export type WatchEvent<T extends KubeObject = KubeObject> =
  { type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK'; object: T } | { type: 'ERROR'; object: Status };

/** Options of a create call (metav1.CreateOptions): dry run, the field manager, and server-side field validation. */
export interface CreateOptions {
  /** Validate and return the result without persisting it (dryRun=All). */
  dryRun?: boolean;
  /** The name of the actor making the change, recorded in managedFields. */
  fieldManager?: string;
  /** What the server does with unknown or duplicate fields: drop them, warn, or fail the request. */
  fieldValidation?: FieldValidation;
}

/** Options of an update call (metav1.UpdateOptions): the same fields as {@link CreateOptions}. */
export type UpdateOptions = CreateOptions;

/**
 * The patch formats (types.PatchType): JSON merge patch, JSON patch (RFC 6902), server-side apply, and strategic merge
 * patch (built-in kinds only).
 */
export type PatchType = 'merge' | 'json' | 'apply' | 'strategic';

/** Options of a patch call (metav1.PatchOptions plus the patch type, which picks the Content-Type). */
export interface PatchOptions {
  /** The patch format; picks the request's Content-Type. */
  type: PatchType;
  /** The name of the actor making the change; required for server-side apply. */
  fieldManager?: string;
  /** Server-side apply only: take ownership of conflicting fields. */
  force?: boolean;
  /** Validate and return the result without persisting it (dryRun=All). */
  dryRun?: boolean;
  /** What the server does with unknown or duplicate fields: drop them, warn, or fail the request. */
  fieldValidation?: FieldValidation;
}

/** What the server does with unknown or duplicate fields of a write: drop them, warn, or fail the request. */
export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

/**
 * Options of a server-side apply (controller-runtime's client.ApplyOptions): the field owner, force, dry run and field
 * validation.
 */
export interface ApplyOptions {
  /** The field manager this apply owns fields as; default the client's `fieldOwner`. One of the two is required. */
  fieldOwner?: string;
  /** Take ownership of fields another manager owns with a different value, instead of failing with 409 Conflict. */
  force?: boolean;
  /** Validate and return the result without persisting it (dryRun=All). */
  dryRun?: boolean;
  /** What the server does with unknown or duplicate fields; default the client's `fieldValidation`. */
  fieldValidation?: FieldValidation;
}

/**
 * Every field of T optional, at every depth (arrays hold deep-partial items): the shape of an apply configuration's
 * contents.
 */
export type DeepPartial<T> = T extends readonly (infer E)[]
  ? DeepPartial<E>[]
  : T extends Date
    ? T
    : T extends object
      ? { [K in keyof T]?: DeepPartial<T[K]> }
      : T;

/**
 * A typed apply configuration (client-go's applyconfigurations, controller-runtime's runtime.ApplyConfiguration): the
 * fields of a T this manager means to own, and only those, checked by the compiler against T's type. It names its
 * object in metadata; apiVersion and kind are filled from the resource when absent. Send it with `client.apply`; read
 * back what a manager owns with `extract` (@kubescaffold/runtime/client). A field T does not have, or a value of the
 * wrong type, does not compile; RestClient.apply has an example.
 */
export type ApplyConfiguration<T extends KubeObject> = DeepPartial<Omit<T, 'metadata'>> & {
  /** The object's name and namespace, and the metadata fields (labels, annotations, ...) to own. */
  metadata: ObjectMeta & { name: string; namespace?: string };
};

/**
 * Conditions a delete must meet on the server (metav1.Preconditions): the object still has this UID and/or
 * resourceVersion.
 */
export interface Preconditions {
  /** Delete only if the object still has this UID (not a new object of the same name). */
  uid?: string;
  /** Delete only if the object is still at this resourceVersion. */
  resourceVersion?: string;
}

/**
 * Options of a delete call (metav1.DeleteOptions): propagation policy for dependents, preconditions, grace period, dry
 * run.
 */
export interface DeleteOptions {
  /**
   * What happens to dependents (objects whose ownerReferences name this one): deleted before it (Foreground), after it
   * (Background), or left (Orphan).
   */
  propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
  /** Conditions the object must meet for the delete to proceed. */
  preconditions?: Preconditions;
  /** Seconds before the object is deleted (pods); 0 deletes at once. */
  gracePeriodSeconds?: number;
  /** Validate without deleting (dryRun=All). */
  dryRun?: boolean;
}

/** Options of a deleteCollection call: which objects (the list options without paging) and how to delete them. */
export type DeleteCollectionOptions = Omit<ListOptions, 'limit' | 'continue'> & DeleteOptions;
