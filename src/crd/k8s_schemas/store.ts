/**
 * A compact form for many fully inlined schemas: every distinct sub-schema is stored once and nested schemas
 * refer to it by index, so PodSpec inside PodTemplateSpec, JobSpec, DeploymentSpec, ... costs one copy.
 */
import type { JSONSchemaProps } from '../../markers/apiextensions.js';

type Node = Record<string, unknown>;

/** Schemas stored by pack(): the distinct sub-schemas, and the index of each named root. */
export interface PackedSchemas {
  nodes: Node[];
  roots: Record<string, number>;
}

const single = ['items', 'not'] as const;
const lists = ['allOf', 'anyOf', 'oneOf'] as const;

/** Packs named schemas for storage, sharing each distinct sub-schema; the inverse of unpack(). */
export function pack(roots: Record<string, JSONSchemaProps>): PackedSchemas {
  const nodes: Node[] = [];
  const index = new Map<string, number>();
  const visit = (s: JSONSchemaProps): number => {
    const node: Node = { ...s };
    if (s.properties) node.properties = Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [k, visit(v)]));
    if (s.additionalProperties !== undefined && typeof s.additionalProperties === 'object')
      node.additionalProperties = visit(s.additionalProperties);
    for (const k of single) if (s[k]) node[k] = visit(s[k]);
    for (const k of lists) if (s[k]) node[k] = s[k].map(visit);
    const key = JSON.stringify(node);
    let i = index.get(key);
    if (i === undefined) {
      i = nodes.length;
      nodes.push(node);
      index.set(key, i);
    }
    return i;
  };
  const out: Record<string, number> = {};
  for (const name of Object.keys(roots).sort()) out[name] = visit(roots[name]!);
  return { nodes, roots: out };
}

/** A fresh (mutable) copy of one stored schema. */
export function unpack(packed: PackedSchemas, i: number): JSONSchemaProps {
  const node = packed.nodes[i]!;
  const s = { ...node } as JSONSchemaProps & Node;
  if (node.properties)
    s.properties = Object.fromEntries(
      Object.entries(node.properties as Record<string, number>).map(([k, v]) => [k, unpack(packed, v)]),
    );
  if (typeof node.additionalProperties === 'number') s.additionalProperties = unpack(packed, node.additionalProperties);
  for (const k of single) if (typeof node[k] === 'number') s[k] = unpack(packed, node[k] as number);
  for (const k of lists) if (Array.isArray(node[k])) s[k] = (node[k] as number[]).map((j) => unpack(packed, j));
  return s;
}
