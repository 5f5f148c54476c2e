/**
 * Named controllers (kubebuilder v4.14's `create api --controller-name`): a resource in PROJECT has either the legacy
 * `controller: true` (one controller named after the kind) or a `controllers:` list of named ones.
 */
import { checkDNS1035Label } from './names.js';
import type { ProjectResource } from './project.js';

/** The names of a resource's controllers: the list's, or the lowercase kind for the legacy `controller: true`. */
export function controllerNames(r: Pick<ProjectResource, 'kind' | 'controller' | 'controllers'>): string[] {
  if (r.controllers && r.controllers.length > 0) return r.controllers.map((c) => c.name);
  return r.controller ? [r.kind.toLowerCase()] : [];
}

/** Whether PROJECT records a controller for the resource, either way. */
export function hasController(r: Pick<ProjectResource, 'kind' | 'controller' | 'controllers'>): boolean {
  return controllerNames(r).length > 0;
}

/** What is wrong with a controller name (a DNS-1035 label, as kubebuilder requires), or undefined. */
export function checkControllerName(name: string): string | undefined {
  if (name === '') return 'controller name cannot be empty';
  const problem = checkDNS1035Label(name);
  return problem ? `invalid controller name "${name}": ${problem}` : undefined;
}

/** The letters and digits of a name, lowercased: two names alike here would make the same reconciler class. */
export function normalizedControllerName(name: string): string {
  return name.replace(/[^A-Za-z0-9]/g, '').toLowerCase();
}

/** The controller file's base name: "captain-backup" → "captain_backup" (kubebuilder's NormalizeFileName). */
export function controllerFileBase(controllerName: string | undefined, kind: string): string {
  return controllerName === undefined ? kind.toLowerCase() : controllerName.replaceAll('-', '_');
}

/**
 * The reconciler class: `<Kind>Reconciler` without a name or with the lowercase kind, else the name in PascalCase
 * ("captain-backup" → CaptainBackupReconciler), as kubebuilder's NormalizeReconcilerName.
 */
export function reconcilerClassName(controllerName: string | undefined, kind: string): string {
  if (controllerName === undefined || controllerName === kind.toLowerCase()) return `${kind}Reconciler`;
  const pascal = controllerName
    .split('-')
    .filter((p) => p !== '')
    .map((p) => p.charAt(0).toUpperCase() + p.slice(1))
    .join('');
  return `${pascal}Reconciler`;
}
