import { ConfigurationError } from '../errors.js';
import type { KubeObject } from '../rest/types.js';
import { fnv1a64, hexBound, type HashRange } from './hash.js';

/** Which field's hash places an object: its uid (even spread) or its namespace (a namespace stays together). */
export type ShardKey = 'uid' | 'namespace';

/**
 * Reads a shard key from text (a flag's value): `uid` or `namespace`. The scaffolded main's --shard-key is parsed
 * with it, so another word is refused as any bad flag value is.
 * @throws ConfigurationError saying which words are allowed
 */
export function parseShardKey(text: string): ShardKey {
  if (text === 'uid' || text === 'namespace') return text;
  throw new ConfigurationError('must be uid or namespace');
}

/** The CEL-style field path the API server hashes for `key`. */
export function shardKeyPath(key: ShardKey): string {
  return key === 'uid' ? 'object.metadata.uid' : 'object.metadata.namespace';
}

/** The value hashed for `obj` ('' for the namespace of a cluster-scoped object, as the server does). */
export function shardKeyValue(obj: KubeObject, key: ShardKey): string {
  return (key === 'uid' ? obj.metadata?.uid : obj.metadata?.namespace) ?? '';
}

/**
 * The shardSelector for `ranges` (joined by ||), in the syntax kube-apiserver 1.37 parses:
 * `shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')`.
 */
export function shardSelector(key: ShardKey, ranges: readonly HashRange[]): string {
  const path = shardKeyPath(key);
  return ranges.map((r) => `shardRange(${path}, '${hexBound(r.start)}', '${hexBound(r.end)}')`).join(' || ');
}

/** Whether `obj` falls in one of `ranges`: the client-side twin of the server's filter. */
export function inRanges(obj: KubeObject, key: ShardKey, ranges: readonly HashRange[]): boolean {
  const h = fnv1a64(shardKeyValue(obj, key));
  return ranges.some((r) => h >= r.start && h < r.end);
}
