/**
 * Package markers: what makes a folder an API version (`+groupName` in its groupversion_info.ts). The CRD assembly
 * (crd/crd.ts) reads them by these definitions' names.
 */
import { string } from '../grammar.js';
import { anon, flag, PKG, type MarkerDefinition, type MarkerGroup } from './define.js';
import type { ReadElsewhere } from './effect.js';

/** `+groupName=crew.example.com`: the folder is an API version of this group. */
export const groupName: MarkerDefinition<ReadElsewhere> = {
  name: 'groupName',
  targets: PKG,
  shape: anon(string, true),
  help: 'the API group of this version folder, e.g. +groupName=crew.example.com',
  effect: { on: 'read', by: 'crd/crd.ts', reads: 'the group of the Kinds in the folder' },
};

/** `+versionName=v1`: the version of the folder, when it is not the folder's name. */
export const versionName: MarkerDefinition<ReadElsewhere> = {
  name: 'versionName',
  targets: PKG,
  shape: anon(string),
  help: 'the API version of this folder (default: the folder name)',
  effect: { on: 'read', by: 'crd/crd.ts', reads: 'the version of the Kinds in the folder' },
};

/** `+kubebuilder:skip`: the folder is not an API version. */
export const skipPackage: MarkerDefinition<ReadElsewhere> = {
  name: 'kubebuilder:skip',
  targets: PKG,
  shape: flag,
  help: 'do not treat this folder as an API version',
  effect: { on: 'read', by: 'crd/crd.ts', reads: 'the folder is left out' },
};

/** The package markers, as the marker reference lists them. */
export const packageMarkers: MarkerGroup = {
  title: 'Package (groupversion_info.ts)',
  definitions: [groupName, versionName, skipPackage],
};
