// Where a project's code imports the runtime from. Projects scaffolded before the runtime became its own package
// import 'kubescaffold/runtime', which the CLI package still re-exports; what the CLI writes into such a project
// keeps to that path until the project moves (docs/guides/upgrading.md).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The runtime's package, which generated code imports. */
export const RUNTIME_PACKAGE = '@kubescaffold/runtime';

/** The runtime's path in projects scaffolded before the split: a deprecated re-export in the CLI package. */
export const LEGACY_RUNTIME_MODULE = 'kubescaffold/runtime';

/** Whether `module` is the runtime's entry point, under either name. */
export function isRuntimeModule(module: string): boolean {
  return module === RUNTIME_PACKAGE || module === LEGACY_RUNTIME_MODULE;
}

/** The module a project imports the runtime from: the legacy path while its package.json names only kubescaffold. */
export function runtimeModuleOf(root: string): string {
  let text: string | undefined;
  try {
    text = readFileSync(join(root, 'package.json'), 'utf8');
  } catch {
    text = undefined;
  }
  return runtimeModuleOfPackageJson(text);
}

/**
 * runtimeModuleOf for the text of a package.json (from a git tree, say): the runtime's package when there is none or
 * it is not JSON, as a project without one gets what the CLI writes today.
 */
export function runtimeModuleOfPackageJson(text: string | undefined): string {
  let pkg: { dependencies?: Record<string, string>; devDependencies?: Record<string, string> };
  try {
    pkg = text === undefined ? {} : (JSON.parse(text) as typeof pkg);
  } catch {
    return RUNTIME_PACKAGE;
  }
  if (typeof pkg !== 'object' || pkg === null) return RUNTIME_PACKAGE;
  const declared = { ...pkg.devDependencies, ...pkg.dependencies };
  return RUNTIME_PACKAGE in declared || !('kubescaffold' in declared) ? RUNTIME_PACKAGE : LEGACY_RUNTIME_MODULE;
}
