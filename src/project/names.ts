/** Kubernetes name rules (apimachinery's validation), as kubebuilder applies them to groups, versions and kinds. */

const dns1123Label = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const dns1123Subdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const dns1035Label = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

/** Returns what is wrong with value as a DNS-1123 subdomain, or undefined when it is valid. */
export function checkDNS1123Subdomain(value: string): string | undefined {
  if (value.length > 253) return 'must be no more than 253 characters';
  if (!dns1123Subdomain.test(value)) {
    return "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com')";
  }
  return undefined;
}

/** Returns what is wrong with value as a DNS-1123 label, or undefined when it is valid. */
export function checkDNS1123Label(value: string): string | undefined {
  if (value.length > 63) return 'must be no more than 63 characters';
  if (!dns1123Label.test(value)) {
    return "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name')";
  }
  return undefined;
}

/** Returns what is wrong with value as a DNS-1035 label, or undefined when it is valid. */
export function checkDNS1035Label(value: string): string | undefined {
  if (value.length > 63) return 'must be no more than 63 characters';
  if (!dns1035Label.test(value)) {
    return "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name')";
  }
  return undefined;
}

/** 32-bit FNV-1a, which kubebuilder uses to derive the leader-election ID from the repository. */
export function fnv32a(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/** The longest shard ring name the manager accepts (a DNS label of at most 40 characters: its Leases add a suffix). */
export const MAX_SHARD_RING_LENGTH = 40;

/**
 * The --shard-ring name scaffolded for a project: its name (a DNS-1123 label) when that fits, else its first 31
 * characters and a hash of the whole name, so that two long names sharing a start still name two rings.
 */
export function shardRingName(projectName: string): string {
  if (projectName.length <= MAX_SHARD_RING_LENGTH) return projectName;
  const hash = fnv32a(projectName).toString(16).padStart(8, '0');
  return `${projectName.slice(0, MAX_SHARD_RING_LENGTH - hash.length - 1).replace(/-+$/, '')}-${hash}`;
}

/** "my-project" → "MyProject"; used for identifiers derived from names. */
export function pascalCase(value: string): string {
  return value
    .split(/[^a-zA-Z0-9]+/)
    .filter((part) => part.length > 0)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}

/** "crew" → "crew", "ship-yard" → "shipYard": a group as a TypeScript identifier prefix. */
export function camelCase(value: string): string {
  const pascal = pascalCase(value);
  return pascal.charAt(0).toLowerCase() + pascal.slice(1);
}
