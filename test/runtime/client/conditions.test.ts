import { describe, expect, it } from 'vitest';
import type { Condition } from '../../../src/runtime/index.js';
import {
  findStatusCondition,
  isStatusConditionTrue,
  removeStatusCondition,
  setStatusCondition,
} from '../../../src/runtime/client/conditions.js';

describe('status conditions', () => {
  it('moves lastTransitionTime only when the status changes', () => {
    const conds: Condition[] = [];
    expect(
      setStatusCondition(conds, { type: 'Ready', status: 'False', reason: 'Init', message: '' }, new Date(1000)),
    ).toBe(true);
    expect(conds[0]?.lastTransitionTime).toBe('1970-01-01T00:00:01Z');
    expect(
      setStatusCondition(conds, { type: 'Ready', status: 'False', reason: 'Still', message: 'm' }, new Date(5000)),
    ).toBe(true);
    expect(conds[0]?.lastTransitionTime).toBe('1970-01-01T00:00:01Z');
    expect(
      setStatusCondition(conds, { type: 'Ready', status: 'False', reason: 'Still', message: 'm' }, new Date(6000)),
    ).toBe(false);
    setStatusCondition(conds, { type: 'Ready', status: 'True', reason: 'Done', message: '' }, new Date(9000));
    expect(conds[0]?.lastTransitionTime).toBe('1970-01-01T00:00:09Z');
    expect(isStatusConditionTrue(conds, 'Ready')).toBe(true);
    expect(findStatusCondition(conds, 'Other')).toBeUndefined();
    expect(removeStatusCondition(conds, 'Ready')).toBe(true);
    expect(conds).toHaveLength(0);
  });
});
