import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { vi } from 'vitest';
import { registerBuildCommand } from '../../src/cli/build.js';
import { registerBuildInstallerCommand, registerDeployCommand, registerUndeployCommand } from '../../src/cli/deploy.js';
import { registerInstallCommand, registerUninstallCommand } from '../../src/cli/install.js';
import { registerRunCommand } from '../../src/cli/run.js';

/** A `scaffold` program with the cluster commands, as the lead's index.ts will wire them. */
export function program(): Command {
  const p = new Command('scaffold')
    .exitOverride()
    .configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
  registerBuildCommand(p);
  registerInstallCommand(p);
  registerUninstallCommand(p);
  registerDeployCommand(p);
  registerUndeployCommand(p);
  registerBuildInstallerCommand(p);
  registerRunCommand(p);
  return p;
}

/** Runs `scaffold <args>` in dir; returns what it printed, or throws what it failed with. */
export async function scaffold(dir: string, ...args: string[]): Promise<string> {
  const lines: string[] = [];
  const spy = vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void lines.push(a.join(' ')));
  const cwd = process.cwd();
  process.chdir(dir);
  try {
    await program().parseAsync(['node', 'scaffold', ...args]);
    return lines.join('\n');
  } finally {
    process.chdir(cwd);
    spy.mockRestore();
  }
}

/** A kubeconfig file for tests, removed by the returned cleanup. */
export function kubeconfigFile(text: string): { file: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'kubescaffold-kc-'));
  const file = join(dir, 'config');
  writeFileSync(file, text);
  return { file, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export const unreachableKubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: nowhere
  cluster:
    server: https://127.0.0.1:1
    insecure-skip-tls-verify: true
contexts:
- name: nowhere
  context:
    cluster: nowhere
    user: nobody
current-context: nowhere
users:
- name: nobody
  user:
    token: x
`;
