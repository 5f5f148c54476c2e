/**
 * Object markers: which interfaces are Kinds. `+kubebuilder:object:root` is read by the CRD assembly (crd/crd.ts);
 * `+kubebuilder:object:generate` switches controller-gen's deepcopy generation, which TypeScript does not need.
 */
import { bool } from '../grammar.js';
import { anon, TYPE, type MarkerDefinition, type MarkerGroup } from './define.js';
import type { Accepted, ReadElsewhere } from './effect.js';

/**
 * `+kubebuilder:object:root=true`: the interface is a root object (a Kind or a List). Kinds are found by TypeMeta and
 * ObjectMeta, as controller-gen finds them; the marker only makes a Kind without TypeMeta an error instead of a skip.
 */
export const objectRoot: MarkerDefinition<ReadElsewhere> = {
  name: 'kubebuilder:object:root',
  targets: TYPE,
  shape: anon(bool, true),
  help: 'marks a root object (a Kind or a List): +kubebuilder:object:root=true',
  effect: {
    on: 'read',
    by: 'crd/crd.ts',
    reads:
      'Kinds are the interfaces that extend TypeMeta and have metadata: ObjectMeta, marked or not; one so marked with metadata but without TypeMeta is an error',
  },
};

/** `+kubebuilder:object:generate=false`: accepted so Go projects' markers port unchanged. */
export const objectGenerate: MarkerDefinition<Accepted> = {
  name: 'kubebuilder:object:generate',
  targets: ['package', 'type'],
  shape: anon(bool),
  help: 'deepcopy generation switch (accepted, no effect in TypeScript)',
  effect: { on: 'accepted', why: 'TypeScript objects need no generated DeepCopy methods' },
};

/** The object markers, as the marker reference lists them. */
export const objectMarkers: MarkerGroup = {
  title: 'Kinds',
  definitions: [objectRoot, objectGenerate],
};
