import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { scaffoldInit, type InitOptions } from '../../src/scaffold/init.js';

export function tempProjectDir(name = 'project'): { root: string; cleanup: () => void } {
  const base = mkdtempSync(join(tmpdir(), 'kubescaffold-test-'));
  const root = join(base, name);
  mkdirSync(root);
  return { root, cleanup: () => rmSync(base, { recursive: true, force: true }) };
}

export const defaultInit: InitOptions = {
  domain: 'example.com',
  license: 'apache2',
  multigroup: false,
  namespaced: false,
  kubescaffoldSpec: '^0.1.0',
  cliVersion: '0.1.0',
};

export function initProject(root: string, options: Partial<InitOptions> = {}): void {
  scaffoldInit(root, { ...defaultInit, ...options });
}

/** Every file below root with its content, for before/after comparisons. */
export function snapshotTree(root: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else files.set(relative(root, path), readFileSync(path, 'utf8'));
    }
  };
  walk(root);
  return files;
}
