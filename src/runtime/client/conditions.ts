import type { Condition } from './apitypes.js';

/** A condition to set; lastTransitionTime is filled in when the status changes. */
export type NewCondition = Omit<Condition, 'lastTransitionTime'> & { lastTransitionTime?: string };

/**
 * Sets `cond` in `conditions` (apimachinery's meta.SetStatusCondition): adds it, or updates the entry of the
 * same type, moving lastTransitionTime only when the status changes. Returns true when anything changed.
 */
export function setStatusCondition(conditions: Condition[], cond: NewCondition, now: Date = new Date()): boolean {
  const existing = conditions.find((c) => c.type === cond.type);
  if (existing === undefined) {
    conditions.push({ ...cond, lastTransitionTime: cond.lastTransitionTime ?? rfc3339(now) });
    return true;
  }
  let changed = false;
  if (existing.status !== cond.status) {
    existing.status = cond.status;
    existing.lastTransitionTime = cond.lastTransitionTime ?? rfc3339(now);
    changed = true;
  }
  if (existing.reason !== cond.reason) {
    existing.reason = cond.reason;
    changed = true;
  }
  if (existing.message !== cond.message) {
    existing.message = cond.message;
    changed = true;
  }
  if (existing.observedGeneration !== cond.observedGeneration) {
    existing.observedGeneration = cond.observedGeneration;
    changed = true;
  }
  return changed;
}

/** The condition of `type`, or undefined (apimachinery's meta.FindStatusCondition). */
export function findStatusCondition(conditions: readonly Condition[] | undefined, type: string): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

/** Removes the condition of `type`; returns true when one was there. */
export function removeStatusCondition(conditions: Condition[], type: string): boolean {
  const i = conditions.findIndex((c) => c.type === type);
  if (i < 0) return false;
  conditions.splice(i, 1);
  return true;
}

/** True when the condition of `type` is there with status 'True' (meta.IsStatusConditionTrue). */
export function isStatusConditionTrue(conditions: readonly Condition[] | undefined, type: string): boolean {
  return findStatusCondition(conditions, type)?.status === 'True';
}

/** True when the condition of `type` is there with status 'False' (meta.IsStatusConditionFalse). */
export function isStatusConditionFalse(conditions: readonly Condition[] | undefined, type: string): boolean {
  return findStatusCondition(conditions, type)?.status === 'False';
}

/** Kubernetes serialises metav1.Time at second precision. */
function rfc3339(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
