import type { KubeObject } from '../rest/types.js';
import { parseSelector, selectorFromLabelSelector, type LabelSelector, type Selector } from '../rest/selector.js';
import type { CreateEvent, DeleteEvent, GenericEvent, Predicate, UpdateEvent } from './events.js';

/**
 * A predicate from optional functions; a missing function lets its events through (controller-runtime's
 * predicate.Funcs). Each function sees its event whole: an update's old and new object, a create's isInInitialList, a
 * delete's last state. See the guide [Controllers that react to what
 * changed](https://github.com/kubescaffold/kubescaffold/blob/main/docs/guides/reacting-to-changes.md).
 */
export function predicateFuncs<T extends KubeObject = KubeObject>(fns: {
  create?: (e: CreateEvent<T>) => boolean;
  update?: (e: UpdateEvent<T>) => boolean;
  delete?: (e: DeleteEvent<T>) => boolean;
  generic?: (e: GenericEvent<T>) => boolean;
}): Predicate<T> {
  return {
    create: (e) => fns.create?.(e) ?? true,
    update: (e) => fns.update?.(e) ?? true,
    delete: (e) => fns.delete?.(e) ?? true,
    generic: (e) => fns.generic?.(e) ?? true,
  };
}

/** Applies one filter to the object of every event (the new object on update); controller-runtime's NewPredicateFuncs. */
export function objectPredicate<T extends KubeObject = KubeObject>(filter: (obj: T) => boolean): Predicate<T> {
  return {
    create: (e) => filter(e.object),
    update: (e) => filter(e.objectNew),
    delete: (e) => filter(e.object),
    generic: (e) => filter(e.object),
  };
}

/** Passes updates that change metadata.generation (spec changes), so status-only writes don't trigger a reconcile. */
export const generationChangedPredicate: Predicate = predicateFuncs({
  update: (e) => e.objectOld.metadata?.generation !== e.objectNew.metadata?.generation,
});

/** Passes updates that change metadata.resourceVersion; drops the no-op updates a resync delivers. */
export const resourceVersionChangedPredicate: Predicate = predicateFuncs({
  update: (e) => e.objectOld.metadata?.resourceVersion !== e.objectNew.metadata?.resourceVersion,
});

/** Passes updates that change metadata.labels. */
export const labelChangedPredicate: Predicate = predicateFuncs({
  update: (e) => !sameStringMap(e.objectOld.metadata?.labels, e.objectNew.metadata?.labels),
});

/** Passes updates that change metadata.annotations. */
export const annotationChangedPredicate: Predicate = predicateFuncs({
  update: (e) => !sameStringMap(e.objectOld.metadata?.annotations, e.objectNew.metadata?.annotations),
});

/** Passes events whose object's labels match the selector (a metav1.LabelSelector or a selector string). */
export function labelSelectorPredicate(selector: LabelSelector | string | Selector): Predicate {
  const sel =
    typeof selector === 'string'
      ? parseSelector(selector)
      : 'matches' in selector
        ? selector
        : selectorFromLabelSelector(selector);
  return objectPredicate((obj) => sel.matches(obj.metadata?.labels ?? {}));
}

/** Passes an event only when every predicate passes it (predicate.And). */
export function and<T extends KubeObject = KubeObject>(...ps: Predicate<T>[]): Predicate<T> {
  return {
    create: (e) => ps.every((p) => p.create(e)),
    update: (e) => ps.every((p) => p.update(e)),
    delete: (e) => ps.every((p) => p.delete(e)),
    generic: (e) => ps.every((p) => p.generic(e)),
  };
}

/** Passes an event when any predicate passes it (predicate.Or). */
export function or<T extends KubeObject = KubeObject>(...ps: Predicate<T>[]): Predicate<T> {
  return {
    create: (e) => ps.some((p) => p.create(e)),
    update: (e) => ps.some((p) => p.update(e)),
    delete: (e) => ps.some((p) => p.delete(e)),
    generic: (e) => ps.some((p) => p.generic(e)),
  };
}

/** Passes exactly the events p rejects (predicate.Not). */
export function not<T extends KubeObject = KubeObject>(p: Predicate<T>): Predicate<T> {
  return {
    create: (e) => !p.create(e),
    update: (e) => !p.update(e),
    delete: (e) => !p.delete(e),
    generic: (e) => !p.generic(e),
  };
}

function sameStringMap(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  const ak = Object.keys(a ?? {});
  const bk = Object.keys(b ?? {});
  if (ak.length !== bk.length) return false;
  return ak.every((k) => (a ?? {})[k] === (b ?? {})[k] && Object.hasOwn(b ?? {}, k));
}
