/**
 * Go projects generated at test time with the real kubebuilder, from a recipe of kubebuilder commands (a fixture's
 * kubebuilder.json), so that nothing copied from kubebuilder's repository is committed here.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runWithGoEnv } from './kubebuilder.js';

/** A fixture's kubebuilder.json: the Go module to create and the kubebuilder command lines to run in it, in order. */
export interface KubebuilderRecipe {
  module: string;
  commands: string[][];
}

export function readRecipe(file: string): KubebuilderRecipe {
  const recipe = JSON.parse(readFileSync(file, 'utf8')) as Partial<KubebuilderRecipe>;
  const ok =
    typeof recipe.module === 'string' &&
    Array.isArray(recipe.commands) &&
    recipe.commands.every((c) => Array.isArray(c) && c.every((a) => typeof a === 'string'));
  if (!ok) throw new Error(`${file}: expected { "module": string, "commands": string[][] }`);
  return recipe as KubebuilderRecipe;
}

/**
 * Creates the Go project `dir` as kubebuilder's test/testdata/generate.sh does: `go mod init` (so that kubebuilder
 * does not look for a module above), then each kubebuilder command of the recipe.
 */
export function generateKubebuilderProject(kubebuilder: string, recipe: KubebuilderRecipe, dir: string): void {
  mkdirSync(dir, { recursive: true });
  runWithGoEnv('go', ['mod', 'init', recipe.module], dir);
  for (const args of recipe.commands) runWithGoEnv(kubebuilder, args, dir);
}

/**
 * Runs controller-gen on the Go project `dir` as parity.test.ts does (CRDs, the manager's role, webhook
 * configurations from ./...), writing into `dir`/out/config/{crd/bases,rbac,webhook}.
 */
export function runControllerGen(controllerGen: string, dir: string): string {
  const out = join(dir, 'out');
  runWithGoEnv(
    controllerGen,
    [
      'rbac:roleName=manager-role',
      'crd',
      'webhook',
      'paths=./...',
      `output:crd:artifacts:config=${out}/config/crd/bases`,
      `output:rbac:artifacts:config=${out}/config/rbac`,
      `output:webhook:artifacts:config=${out}/config/webhook`,
    ],
    dir,
  );
  return out;
}
