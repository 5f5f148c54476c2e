/** Integer fields in API types; the marker generator maps them to `type: integer` with format int32 / int64. */
export type int32 = number;
export type int64 = number;

/** metav1.Condition: one aspect of an object's current state, kept in `status.conditions`. */
export interface Condition {
  /** CamelCase condition type, e.g. Available. */
  type: string;
  status: 'True' | 'False' | 'Unknown';
  /** The .metadata.generation the condition was computed from. */
  observedGeneration?: int64;
  /** RFC 3339 time the status last changed. */
  lastTransitionTime: string;
  /** CamelCase machine-readable reason. */
  reason: string;
  message: string;
}
