/*
Copyright 2026 The Sealed Secrets port's authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

import type { FlagDefinitions, FlagValues } from '@kubescaffold/runtime';
import { parseGoDuration } from '../internal/keys/duration.js';
import type { KeyOrderPriority } from '../internal/keys/registry.js';

/**
 * The operator's own command-line flags, as a Go operator adds flag.StringVar, flag.IntVar and flag.BoolVar lines to
 * its main.go: cmd/main.ts parses them with the manager's flags, as Go's flag package does, and -h lists them with
 * theirs. One entry a flag, named without dashes, for example:
 *
 *   'sync-period': { type: 'string', default: '10h', usage: 'How often every object is reconciled again.' },
 *   'max-backups': { type: 'int', default: 5, usage: 'How many backups of a database are kept.' },
 *   'dry-run': { type: 'bool', default: false, usage: 'Log what would change instead of changing it.' },
 *
 * or { type: 'value', default, parse, usage } for a value that its own parse function reads, as Go's flag.Var. A name
 * that the manager's flags have already (leader-elect, ...) is a compile error in cmd/main.ts.
 */
export const operatorFlags = {
  // The original's flags (cmd/controller/main.go), with its names, defaults and usage.
  'key-prefix': { type: 'string', default: 'sealed-secrets-key', usage: 'Prefix used to name keys.' },
  'key-size': { type: 'int', default: 4096, usage: 'Size of encryption key.' },
  'key-ttl': { type: 'value', default: '87600h', parse: parseGoDuration, usage: 'Duration that certificate is valid for.' },
  'my-cn': { type: 'string', default: '', usage: 'Common name to be used as issuer/subject DN in generated certificate.' },
  'key-renew-period': { type: 'value', default: '720h', parse: parseGoDuration, usage: 'New key generation period (automatic rotation deactivated if 0)' },
  'key-order-priority': { type: 'value', default: 'CertNotBefore', parse: parseKeyOrderPriority, usage: 'Ordering of keys based on NotBefore certificate attribute or secret creation timestamp.' },
  'key-cutoff-time': { type: 'value', default: '', parse: parseCutoffTime, usage: 'Create a new key if latest one is older than this cutoff time. RFC1123 format with numeric timezone expected.' },
  'accept-deprecated-v1-data': { type: 'bool', default: true, usage: 'Accept deprecated V1 data field.' },
  'all-namespaces': { type: 'bool', default: true, usage: 'Scan all namespaces or only the current namespace (default=true).' },
  'additional-namespaces': { type: 'string', default: '', usage: 'Comma-separated list of additional namespaces to be scanned.' },
  'update-status': { type: 'bool', default: true, usage: 'if true, the controller will update the status sub-resource whenever it processes a sealed secret (stable; enabled by default since v0.17.0)' },
  'skip-recreate': { type: 'bool', default: false, usage: 'if true the controller will skip listening for managed secret changes to recreate them. This helps on limited permission environments.' },
  'max-unseal-retries': { type: 'int', default: 5, usage: 'Max unseal retries.' },
  'listen-addr': { type: 'string', default: ':8080', usage: 'HTTP serving address.' },
  // +kubebuilder:scaffold:flags
} satisfies FlagDefinitions;

/**
 * The values of the operator's flags as cmd/main.ts parsed them, each typed by its definition (string, number,
 * boolean, or what a value flag's parse returns): main.ts's `flags` has them, to hand to your controllers.
 */
export type OperatorFlags = FlagValues<typeof operatorFlags>;

function parseKeyOrderPriority(s: string): KeyOrderPriority {
  if (s === 'CertNotBefore' || s === 'SecretCreationTimestamp') return s;
  throw new Error('Invalid keyOrderPriority. Use CertNotBefore or SecretCreationTimestamp');
}

// RFC 1123 with a numeric zone (Mon, 02 Jan 2006 15:04:05 -0700); empty for none.
function parseCutoffTime(s: string): Date | undefined {
  if (s === '') return undefined;
  const m = /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} [+-]\d{4}$/.exec(s);
  const t = m ? new Date(s) : undefined;
  if (!t || Number.isNaN(t.getTime())) throw new Error(`parsing time "${s}" as RFC1123Z: cannot parse`);
  return t;
}
