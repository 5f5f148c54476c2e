/** Integer fields in API types; the marker generator maps them to `type: integer` with format int32 / int64. */
export type int32 = number;
/**
 * 64-bit integer fields in API types (JavaScript numbers are exact up to 2^53); the marker generator maps them to
 * `type: integer` with format int64.
 */
export type int64 = number;
/**
 * Go's `int` in API types: the marker generator maps it to `type: integer` without a format, as controller-gen does.
 * New APIs should prefer int32 or int64, as the Kubernetes API conventions ask.
 */
export type int = number;
/** Go's `[]byte`: base64 text in JSON; the marker generator maps it to `type: string` with format byte. */
export type bytes = string;

// Kubernetes' special value types, as they travel in JSON. The marker generator gives each controller-gen's fixed
// schema (Quantity: int-or-string with a pattern, Time: date-time string, RawExtension: preserved object, ...).
/** resource.Quantity, e.g. "100Mi" or 2. */
export type Quantity = string | number;
/** intstr.IntOrString, e.g. 8080 or "http". */
export type IntOrString = number | string;
/** metav1.Time: an RFC 3339 timestamp. */
export type Time = string;
/** metav1.MicroTime: an RFC 3339 timestamp with microseconds. */
export type MicroTime = string;
/** metav1.Duration: a Go duration string, e.g. "1h30m". */
export type Duration = string;
/** Any JSON value (apiextensions JSON). */
export type { JSONValue } from '../json/index.js';
import type { JSONValue } from '../json/index.js';
/** runtime.RawExtension: an embedded object of any kind. */
export type RawExtension = { [key: string]: JSONValue };

/** metav1.Condition: one aspect of an object's current state, kept in `status.conditions`. */
export interface Condition {
  /** CamelCase condition type, e.g. Available. */
  type: string;
  /** Whether the condition holds: True, False, or Unknown. */
  status: 'True' | 'False' | 'Unknown';
  /** The .metadata.generation the condition was computed from. */
  observedGeneration?: int64;
  /** RFC 3339 time the status last changed. */
  lastTransitionTime: string;
  /** CamelCase machine-readable reason. */
  reason: string;
  /** A human-readable message with details of the transition. */
  message: string;
}
