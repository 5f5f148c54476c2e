import { parseAllDocuments } from 'yaml';
import { KustomizeError } from './errors.js';
import type { JsonValue } from './values.js';

const EXOTIC_TAGS = new Set(['tag:yaml.org,2002:timestamp', 'tag:yaml.org,2002:binary', 'tag:yaml.org,2002:set', 'tag:yaml.org,2002:omap', 'tag:yaml.org,2002:pairs']);

/**
 * Parses every document of a YAML stream into plain data. Resources are read as kyaml reads them (YAML 1.2 core);
 * kustomization files and JSON patches as sigs.k8s.io/yaml does (YAML 1.1, where `yes` is a boolean).
 */
export function parseYamlDocuments(text: string, file: string, version: '1.1' | '1.2' = '1.2'): JsonValue[] {
  const docs = parseAllDocuments(text, {
    version,
    merge: true,
    uniqueKeys: true,
    prettyErrors: true,
    resolveKnownTags: false,
    // Keep plain JSON data: no Date, Uint8Array, Set or Map values from YAML 1.1's extra types.
    customTags: (tags) => tags.filter((t) => typeof t === 'string' || !EXOTIC_TAGS.has(t.tag)),
  });
  const out: JsonValue[] = [];
  for (const doc of Array.isArray(docs) ? docs : [docs]) {
    const err = doc.errors[0];
    if (err) throw new KustomizeError(`${file}: invalid YAML: ${err.message.split('\n')[0]}`);
    out.push(doc.toJS({ maxAliasCount: 10_000 }) as JsonValue);
  }
  return out;
}

export function parseYamlDocument(text: string, file: string, version: '1.1' | '1.2' = '1.2'): JsonValue {
  const docs = parseYamlDocuments(text, file, version).filter((d) => d !== null);
  if (docs.length > 1) throw new KustomizeError(`${file}: expected one YAML document, found ${docs.length}`);
  return docs[0] ?? null;
}
