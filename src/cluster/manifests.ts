import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { kustomizeBuild, kustomizeBuildYaml, parseImageArgument, setKustomizationImage } from '../kustomize/index.js';
import { ClusterError } from './errors.js';
import type { ManifestObject } from './objects.js';

function configDir(projectRoot: string, rel: string): string {
  const dir = join(projectRoot, rel);
  if (!existsSync(dir)) {
    throw new ClusterError(
      `${rel} does not exist in ${projectRoot}; run this command in the project's root directory (where PROJECT is)`,
    );
  }
  return dir;
}

/** The objects a config directory of the project builds to. */
export function buildConfig(projectRoot: string, rel: string): ManifestObject[] {
  return kustomizeBuild(configDir(projectRoot, rel)) as unknown as ManifestObject[];
}

/** The same, as the YAML stream kustomize prints (what dist/install.yaml holds). */
export function buildConfigYaml(projectRoot: string, rel: string): string {
  return kustomizeBuildYaml(configDir(projectRoot, rel));
}

/**
 * Sets the manager image the way kubebuilder's Makefile does (`cd config/manager && kustomize edit set image
 * controller=IMG`): it is recorded in config/manager/kustomization.yaml. Returns whether the file changed.
 */
export function setManagerImage(projectRoot: string, img: string): boolean {
  const dir = join(projectRoot, 'config', 'manager');
  if (!existsSync(dir))
    throw new ClusterError(
      `config/manager does not exist in ${projectRoot}; run this command in the project's root directory`,
    );
  return setKustomizationImage(dir, parseImageArgument(`controller=${img}`), projectRoot);
}
