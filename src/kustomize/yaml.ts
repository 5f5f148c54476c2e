import type { ScalarTag } from 'yaml';
import { readYamlDocuments, YamlInputError } from '../yaml/read.js';
import { KustomizeError } from './errors.js';
import type { JSONValue } from './values.js';

const EXOTIC_TAGS = new Set([
  'tag:yaml.org,2002:timestamp',
  'tag:yaml.org,2002:binary',
  'tag:yaml.org,2002:set',
  'tag:yaml.org,2002:omap',
  'tag:yaml.org,2002:pairs',
]);

const TIMESTAMP =
  /^(\d{4})-(\d{1,2})-(\d{1,2})(?:(?:[Tt](\d{1,2}):(\d{1,2}):(\d{1,2})(\.\d+)?(Z|[-+]\d{2}:\d{2}))|(?: (\d{1,2}):(\d{1,2}):(\d{1,2})(\.\d+)?))?$/;

/**
 * kyaml decodes plain timestamps (yaml.v3 does) and they reach the output as Go's RFC 3339 form:
 * `2021-01-01` becomes "2021-01-01T00:00:00Z". Invalid dates stay strings.
 */
export function goTimestamp(text: string): string | undefined {
  const m = TIMESTAMP.exec(text);
  if (!m) return undefined;
  const [, y, mo, d] = m;
  const h = m[4] ?? m[9] ?? '0';
  const mi = m[5] ?? m[10] ?? '0';
  const s = m[6] ?? m[11] ?? '0';
  const frac = (m[7] ?? m[12] ?? '').slice(1).replace(/0+$/, '');
  const zone = m[8] === undefined || /^[-+]00:00$/.test(m[8]) ? 'Z' : m[8];
  const nums = [Number(mo), Number(d), Number(h), Number(mi), Number(s)] as const;
  const daysIn = new Date(Date.UTC(Number(y), nums[0], 0)).getUTCDate();
  if (nums[0] < 1 || nums[0] > 12 || nums[1] < 1 || nums[1] > daysIn || nums[2] > 23 || nums[3] > 59 || nums[4] > 59)
    return undefined;
  const two = (n: number) => String(n).padStart(2, '0');
  return `${y}-${two(nums[0])}-${two(nums[1])}T${two(nums[2])}:${two(nums[3])}:${two(nums[4])}${frac ? `.${frac}` : ''}${zone}`;
}

const timestampTag: ScalarTag = {
  tag: 'tag:yaml.org,2002:timestamp',
  default: true,
  test: TIMESTAMP,
  resolve: (text) => goTimestamp(text) ?? text,
};

/**
 * Parses every document of a YAML stream into plain data. Resources are read as kyaml reads them (YAML 1.2 core);
 * kustomization files and JSON patches as sigs.k8s.io/yaml does (YAML 1.1, where `yes` is a boolean).
 */
export function parseYamlDocuments(text: string, file: string, version: '1.1' | '1.2' = '1.2'): JSONValue[] {
  try {
    const docs = readYamlDocuments(text, file, {
      version,
      merge: true,
      uniqueKeys: true,
      resolveKnownTags: false,
      // Keep plain JSON data: no Date, Uint8Array, Set or Map values from YAML 1.1's extra types.
      customTags: (tags) => [
        ...tags.filter((t) => typeof t === 'string' || !EXOTIC_TAGS.has(t.tag)),
        ...(version === '1.2' ? [timestampTag] : []),
      ],
    });
    return docs.map((d) => d.data as JSONValue);
  } catch (err) {
    if (err instanceof YamlInputError) throw new KustomizeError(err.message);
    throw err;
  }
}

/** Parses a file that must hold exactly one YAML document (null when it is empty). */
export function parseYamlDocument(text: string, file: string, version: '1.1' | '1.2' = '1.2'): JSONValue {
  const docs = parseYamlDocuments(text, file, version).filter((d) => d !== null);
  if (docs.length > 1) throw new KustomizeError(`${file}: expected one YAML document, found ${docs.length}`);
  return docs[0] ?? null;
}
