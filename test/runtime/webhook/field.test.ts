import { describe, expect, it } from 'vitest';
import { aggregateFieldErrors, field, fieldErrorString, invalidStatus } from '../../../src/runtime/webhook/index.js';

describe('field errors', () => {
  it('are worded as apimachinery words them', () => {
    expect(fieldErrorString(field.invalid('spec.foo', 'bar', 'must be short'))).toBe(
      'spec.foo: Invalid value: "bar": must be short',
    );
    expect(fieldErrorString(field.invalid('spec.replicas', 7, 'must be at most 5'))).toBe(
      'spec.replicas: Invalid value: 7: must be at most 5',
    );
    expect(fieldErrorString(field.invalid('spec.on', true, ''))).toBe('spec.on: Invalid value: true');
    expect(fieldErrorString(field.invalid('spec.x', undefined, 'unset'))).toBe('spec.x: Invalid value: "null": unset');
    expect(fieldErrorString(field.invalid('spec.o', { a: [1] }, 'bad'))).toBe('spec.o: Invalid value: {"a":[1]}: bad');
    expect(fieldErrorString(field.required('spec.name', 'a name is needed'))).toBe(
      'spec.name: Required value: a name is needed',
    );
    expect(fieldErrorString(field.forbidden('spec.secret', 'may not be set'))).toBe(
      'spec.secret: Forbidden: may not be set',
    );
    expect(fieldErrorString(field.notSupported('spec.mode', 'c', ['a', 'b']))).toBe(
      'spec.mode: Unsupported value: "c": supported values: "a", "b"',
    );
    expect(fieldErrorString(field.duplicate('spec.ports[1]', 80))).toBe('spec.ports[1]: Duplicate value: 80');
    expect(fieldErrorString(field.tooLong('metadata.name', 'x'.repeat(70), 63))).toBe(
      'metadata.name: Too long: may not be more than 63 bytes',
    );
  });

  it('aggregate like utilerrors: one alone, several in brackets, repeats once', () => {
    const a = field.required('spec.a', 'needed');
    const b = field.invalid('spec.b', 1, 'too small');
    expect(aggregateFieldErrors([a])).toBe('spec.a: Required value: needed');
    expect(aggregateFieldErrors([a, b, a])).toBe(
      '[spec.a: Required value: needed, spec.b: Invalid value: 1: too small]',
    );
  });

  it('become the 422 Invalid status of errors.NewInvalid, with one cause per error', () => {
    const status = invalidStatus({ group: 'crew.example.com', kind: 'Captain' }, 'captain-sample', [
      field.invalid('spec.foo', 'bar', 'must be short'),
    ]);
    expect(status).toMatchObject({
      status: 'Failure',
      code: 422,
      reason: 'Invalid',
      message: 'Captain.crew.example.com "captain-sample" is invalid: spec.foo: Invalid value: "bar": must be short',
      details: {
        group: 'crew.example.com',
        kind: 'Captain',
        name: 'captain-sample',
        causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: "bar": must be short', field: 'spec.foo' }],
      },
    });
    expect(invalidStatus({ group: '', kind: 'Pod' }, 'p', []).message).toBe('Pod "p" is invalid');
  });
});
