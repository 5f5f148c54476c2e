import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { registryDependencies } from '../../src/scaffold/dependencies.js';
import { scaffoldInit, type InitOptions } from '../../src/scaffold/init.js';
import { listFiles, tempDir } from '../support/files.js';

/** An empty project directory named `name` (the project's name comes from it) inside a fresh temp dir. */
export function tempProjectDir(name = 'project'): { root: string; cleanup: () => void } {
  const base = tempDir();
  const root = join(base.path, name);
  mkdirSync(root);
  return { root, cleanup: base.remove };
}

export const defaultInit: InitOptions = {
  domain: 'example.com',
  license: 'apache2',
  multigroup: false,
  namespaced: false,
  dependencies: () => registryDependencies('0.1.0'),
  cliVersion: '0.1.0',
};

export function initProject(root: string, options: Partial<InitOptions> = {}): void {
  scaffoldInit(root, { ...defaultInit, ...options });
}

/** Every file below root with its content, for before/after comparisons. */
export function snapshotTree(root: string): Map<string, string> {
  return new Map(listFiles(root).map((path) => [path, readFileSync(join(root, path), 'utf8')]));
}
