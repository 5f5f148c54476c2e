import { describe, expect, it } from 'vitest';
import {
  and,
  annotationChangedPredicate,
  generationChangedPredicate,
  labelChangedPredicate,
  labelSelectorPredicate,
  not,
  or,
  resourceVersionChangedPredicate,
} from '../../../src/runtime/controller/index.js';
import type { KubeObject } from '../../../src/runtime/rest/types.js';

const obj = (meta: KubeObject['metadata']): KubeObject => ({ metadata: { name: 'o', namespace: 'ns', ...meta } });
const update = (a: KubeObject['metadata'], b: KubeObject['metadata']) => ({ objectOld: obj(a), objectNew: obj(b) });

describe('predicates', () => {
  it('GenerationChanged passes spec changes and drops status-only updates', () => {
    expect(generationChangedPredicate.update(update({ generation: 1 }, { generation: 2 }))).toBe(true);
    expect(
      generationChangedPredicate.update(
        update({ generation: 1, resourceVersion: '1' }, { generation: 1, resourceVersion: '2' }),
      ),
    ).toBe(false);
    expect(generationChangedPredicate.create({ object: obj({}) })).toBe(true);
  });

  it('ResourceVersionChanged drops resync no-ops', () => {
    expect(resourceVersionChangedPredicate.update(update({ resourceVersion: '1' }, { resourceVersion: '1' }))).toBe(
      false,
    );
    expect(resourceVersionChangedPredicate.update(update({ resourceVersion: '1' }, { resourceVersion: '2' }))).toBe(
      true,
    );
  });

  it('LabelChanged and AnnotationChanged compare the maps', () => {
    expect(labelChangedPredicate.update(update({ labels: { a: '1' } }, { labels: { a: '1' } }))).toBe(false);
    expect(labelChangedPredicate.update(update({ labels: { a: '1' } }, { labels: { a: '2' } }))).toBe(true);
    expect(labelChangedPredicate.update(update({}, { labels: { a: '1' } }))).toBe(true);
    expect(annotationChangedPredicate.update(update({ annotations: { x: 'y' } }, {}))).toBe(true);
    expect(annotationChangedPredicate.update(update({}, {}))).toBe(false);
  });

  it('LabelSelector matches on every event kind', () => {
    const p = labelSelectorPredicate({
      matchLabels: { app: 'web' },
      matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['db'] }],
    });
    expect(p.create({ object: obj({ labels: { app: 'web' } }) })).toBe(true);
    expect(p.create({ object: obj({ labels: { app: 'web', tier: 'db' } }) })).toBe(false);
    expect(p.delete({ object: obj({ labels: {} }), deleteStateUnknown: false })).toBe(false);
    expect(labelSelectorPredicate('app in (web,api)').generic({ object: obj({ labels: { app: 'api' } }) })).toBe(true);
  });

  it('and / or / not combine predicates', () => {
    const e = update({ generation: 1, labels: { a: '1' } }, { generation: 1, labels: { a: '2' } });
    expect(and(generationChangedPredicate, labelChangedPredicate).update(e)).toBe(false);
    expect(or(generationChangedPredicate, labelChangedPredicate).update(e)).toBe(true);
    expect(not(generationChangedPredicate).update(e)).toBe(true);
  });
});
