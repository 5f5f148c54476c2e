/** Building the CustomResourceDefinitions tests install: name, names and structural schema derived from a few facts. */
import type { KubeObject } from '../../src/runtime/rest/index.js';

type Schema = Record<string, unknown>;

/** One version of a test CRD. */
export interface TestCRDVersion {
  name: string;
  /** The storage version; default true for the first version only. */
  storage?: boolean;
  /** Default true. */
  served?: boolean;
  /** The properties of spec. */
  spec?: Record<string, Schema>;
  /** spec's required properties. */
  required?: string[];
  /** The properties of status; a status subresource is added when given. */
  status?: Record<string, Schema>;
}

/** What a test CRD is made from. */
export interface TestCRDOptions {
  group: string;
  kind: string;
  /** Default: the lowercased kind plus "s". */
  plural?: string;
  /** Default Namespaced. */
  scope?: 'Namespaced' | 'Cluster';
  versions: TestCRDVersion[];
  /** spec.conversion, e.g. a webhook. */
  conversion?: Record<string, unknown>;
}

/** A CustomResourceDefinition with a structural schema, as `scaffold manifests` would write one for these facts. */
export function testCRD(o: TestCRDOptions): KubeObject & { spec: Record<string, unknown> } {
  const plural = o.plural ?? `${o.kind.toLowerCase()}s`;
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${o.group}` },
    spec: {
      group: o.group,
      names: { kind: o.kind, listKind: `${o.kind}List`, plural, singular: o.kind.toLowerCase() },
      scope: o.scope ?? 'Namespaced',
      versions: o.versions.map((v, i) => ({
        name: v.name,
        served: v.served ?? true,
        storage: v.storage ?? i === 0,
        ...(v.status ? { subresources: { status: {} } } : {}),
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', ...(v.required ? { required: v.required } : {}), properties: v.spec ?? {} },
              ...(v.status ? { status: { type: 'object', properties: v.status } } : {}),
            },
          },
        },
      })),
      ...(o.conversion ? { conversion: o.conversion } : {}),
    },
  };
}
