/*
Copyright 2026 The trust-manager port's authors.

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
  // trust-manager's Bundle flags (cmd/trust-manager/app/options/options.go), with its names and defaults.
  'trust-namespace': { type: 'string', default: 'cert-manager', usage: 'Namespace to source trust bundles from.' },
  'target-namespaces': { type: 'string', default: '', usage: 'Comma-separated list of namespaces to limit both the manager and target caches.' },
  'filter-expired-certificates': { type: 'bool', default: false, usage: 'Filter expired certificates from the bundle.' },
  'filter-non-ca-certs': { type: 'bool', default: false, usage: 'Filter non-CA certificates, only CAs are used in the resulting Bundle' },
  // +kubebuilder:scaffold:flags
} satisfies FlagDefinitions;

/**
 * The values of the operator's flags as cmd/main.ts parsed them, each typed by its definition (string, number,
 * boolean, or what a value flag's parse returns): main.ts's `flags` has them, to hand to your controllers.
 */
export type OperatorFlags = FlagValues<typeof operatorFlags>;
