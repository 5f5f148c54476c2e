/**
 * Object markers: which interfaces are Kinds. `+kubebuilder:object:root` is read by the CRD assembly (crd/crd.ts);
 * `+kubebuilder:object:generate` switches controller-gen's deepcopy generation, which TypeScript does not need.
 */
import { bool } from '../grammar.js';
import { anon, TYPE, type MarkerDefinition, type MarkerGroup } from './define.js';
import type { Accepted, ReadElsewhere } from './effect.js';

/** `+kubebuilder:object:root=true`: the interface is a Kind (with `metadata: ObjectMeta`) or another root object. */
export const objectRoot: MarkerDefinition<ReadElsewhere> = {
  name: 'kubebuilder:object:root',
  targets: TYPE,
  shape: anon(bool, true),
  help: 'marks a Kind: +kubebuilder:object:root=true',
  effect: { on: 'read', by: 'crd/crd.ts', reads: 'interfaces so marked that have metadata: ObjectMeta are the Kinds' },
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
