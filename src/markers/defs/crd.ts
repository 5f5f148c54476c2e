/**
 * CRD markers (controller-gen's pkg/crd/markers/crd.go), on the Kind of each version: names and scope and the CRD's
 * metadata for the whole CRD, subresources, printer columns, selectable fields and the version's storage, serving and
 * deprecation for one version.
 */
import { int, string } from '../grammar.js';
import type { CRDVersion } from '../apiextensions.js';
import { flag, opt, strings, struct, TYPE, type MarkerDefinition, type MarkerGroup } from './define.js';
import type { CRDEffect, ReadElsewhere, VersionEffect } from './effect.js';

const version = (apply: VersionEffect['apply']): VersionEffect => ({ on: 'version', apply });

/** `+kubebuilder:resource`: the CRD's names and scope; every version must carry the same one. */
export const resource: MarkerDefinition<CRDEffect> = {
  name: 'kubebuilder:resource',
  targets: TYPE,
  shape: struct({
    path: opt(string),
    shortName: opt(strings),
    categories: opt(strings),
    singular: opt(string),
    scope: opt(string),
  }),
  help: 'resource names and scope, e.g. +kubebuilder:resource:scope=Cluster,shortName=cap',
  effect: {
    on: 'crd',
    sameOnEveryVersion: true,
    apply(crd, value, report) {
      const r = value as {
        path?: string;
        singular?: string;
        shortName?: string[];
        categories?: string[];
        scope?: string;
      };
      if (r.path) crd.spec.names.plural = r.path;
      if (r.singular) crd.spec.names.singular = r.singular;
      if (r.shortName && r.shortName.length > 0) crd.spec.names.shortNames = r.shortName;
      if (r.categories && r.categories.length > 0) crd.spec.names.categories = r.categories;
      if (r.scope) {
        if (r.scope !== 'Namespaced' && r.scope !== 'Cluster')
          report(`+kubebuilder:resource:scope must be Namespaced or Cluster, not ${JSON.stringify(r.scope)}`);
        crd.spec.scope = r.scope;
      }
    },
  },
};

/** `+kubebuilder:metadata`: annotations and labels of the CRD object, from every version. */
export const metadata: MarkerDefinition<CRDEffect> = {
  name: 'kubebuilder:metadata',
  targets: TYPE,
  shape: struct({ annotations: opt(strings), labels: opt(strings) }),
  help: 'CRD annotations and labels, each "key=value"',
  effect: {
    on: 'crd',
    sameOnEveryVersion: false,
    apply(crd, value, report) {
      const x = value as { annotations?: string[]; labels?: string[] };
      for (const [list, into] of [
        [x.annotations, 'annotations'],
        [x.labels, 'labels'],
      ] as const) {
        for (const kv of list ?? []) {
          const eq = kv.indexOf('=');
          if (eq < 0) {
            report(`${into === 'annotations' ? 'annotation' : 'label'} ${kv} is not in 'xxx=xxx' format`);
            continue;
          }
          (crd.metadata[into] ??= {})[kv.slice(0, eq)] = kv.slice(eq + 1);
        }
      }
    },
  },
};

/** `+kubebuilder:storageversion`: the version the API server stores. */
export const storageVersion: MarkerDefinition<VersionEffect> = {
  name: 'kubebuilder:storageversion',
  targets: TYPE,
  shape: flag,
  help: 'this version is the storage version',
  effect: version((ver) => {
    ver.storage = true;
  }),
};

/** `+kubebuilder:unservedversion`: the version is not served. */
export const unservedVersion: MarkerDefinition<VersionEffect> = {
  name: 'kubebuilder:unservedversion',
  targets: TYPE,
  shape: flag,
  help: 'this version is not served',
  effect: version((ver) => {
    ver.served = false;
  }),
};

/** `+kubebuilder:skipversion`: the CRD assembly leaves the version out. */
export const skipVersion: MarkerDefinition<ReadElsewhere> = {
  name: 'kubebuilder:skipversion',
  targets: TYPE,
  shape: flag,
  help: 'leave this version out of the CRD',
  effect: { on: 'read', by: 'crd/crd.ts', reads: 'the version is left out of the CRD' },
};

const definitions: readonly MarkerDefinition[] = [
  resource,
  metadata,
  {
    name: 'kubebuilder:subresource:status',
    targets: TYPE,
    shape: flag,
    help: 'enables the status subresource',
    effect: version((ver) => {
      (ver.subresources ??= {}).status = {};
    }),
  },
  {
    name: 'kubebuilder:subresource:scale',
    targets: TYPE,
    shape: struct({ specpath: string, statuspath: string, selectorpath: opt(string) }),
    help: 'enables the scale subresource, e.g. +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas',
    effect: version((ver, value) => {
      const x = value as { specpath: string; statuspath: string; selectorpath?: string };
      const scale: NonNullable<CRDVersion['subresources']>['scale'] = {
        specReplicasPath: x.specpath,
        statusReplicasPath: x.statuspath,
      };
      if (x.selectorpath !== undefined) scale.labelSelectorPath = x.selectorpath;
      (ver.subresources ??= {}).scale = scale;
    }),
  },
  {
    name: 'kubebuilder:printcolumn',
    targets: TYPE,
    shape: struct({
      name: string,
      type: string,
      JSONPath: string,
      description: opt(string),
      format: opt(string),
      priority: opt(int),
    }),
    help: 'a kubectl column, e.g. +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`',
    effect: version((ver, value, report) => {
      const x = value as {
        name: string;
        type: string;
        JSONPath: string;
        description?: string;
        format?: string;
        priority?: number;
      };
      const types = ['integer', 'number', 'string', 'boolean', 'date'];
      if (!types.includes(x.type))
        report(`printcolumn type must be one of ${types.join(', ')}, not ${JSON.stringify(x.type)}`);
      ver.subresources ??= {}; // controller-gen's quirk: a printer column always brings `subresources: {}`
      (ver.additionalPrinterColumns ??= []).push({
        name: x.name,
        type: x.type,
        jsonPath: x.JSONPath,
        ...(x.description ? { description: x.description } : {}),
        ...(x.format ? { format: x.format } : {}),
        ...(x.priority ? { priority: x.priority } : {}),
      });
    }),
  },
  storageVersion,
  skipVersion,
  unservedVersion,
  {
    name: 'kubebuilder:deprecatedversion',
    targets: TYPE,
    shape: struct({ warning: opt(string) }),
    help: 'this version is deprecated',
    effect: version((ver, value) => {
      const x = value as { warning?: string };
      ver.deprecated = true;
      if (x.warning !== undefined) ver.deprecationWarning = x.warning;
    }),
  },
  {
    name: 'kubebuilder:selectablefield',
    targets: TYPE,
    shape: struct({ JSONPath: string }),
    help: 'a field selector, e.g. +kubebuilder:selectablefield:JSONPath=`.spec.name`',
    effect: version((ver, value) => {
      const x = value as { JSONPath: string };
      (ver.selectableFields ??= []).push({ jsonPath: x.JSONPath });
    }),
  },
];

/** The CRD markers, as the marker reference lists them. */
export const crdMarkers: MarkerGroup = { title: 'CRD (on the Kind)', definitions };
