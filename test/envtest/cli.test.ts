import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as k8s from '@kubernetes/client-node';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { registerEnvtestCommand, runEnvtestStart } from '../../src/cli/envtest.js';
import { CliError } from '../../src/cli/errors.js';
import { findBinaries, type Binaries } from '../../src/envtest/index.js';
import { processesMentioning } from './helpers.js';

let bins: Binaries;
let scratch: string;

beforeAll(async () => {
  bins = await findBinaries();
  scratch = await mkdtemp(join(tmpdir(), 'envtest-cli-test-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** Runs `scaffold envtest ...` in-process with `env` overlaid on process.env; returns what it printed to stdout. */
async function scaffold(args: string[], env: Record<string, string | undefined> = {}): Promise<string> {
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  const out: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    out.push(String(chunk));
    return true;
  });
  const errSpy = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  Object.assign(process.env, env);
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete process.env[k];
  try {
    const program = new Command('scaffold').exitOverride();
    registerEnvtestCommand(program);
    await program.parseAsync(['envtest', ...args], { from: 'user' });
    return out.join('');
  } finally {
    spy.mockRestore();
    errSpy.mockRestore();
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

describe('scaffold envtest use', () => {
  it('prints the directory of KUBEBUILDER_ASSETS when it is set', async () => {
    expect(await scaffold(['use', '-p', 'path'], { KUBEBUILDER_ASSETS: bins.dir })).toBe(`${bins.dir}\n`);
  });

  it('prints an export line for the cached version under --bin-dir', async () => {
    const root = join(scratch, 'bin-dir');
    await mkdir(join(root, '1.37.1'), { recursive: true });
    await symlink(bins.kubeApiserver, join(root, '1.37.1', 'kube-apiserver'));
    await symlink(bins.etcd, join(root, '1.37.1', 'etcd'));
    const out = await scaffold(['use', '1.37', '--bin-dir', root, '-p', 'env'], { KUBEBUILDER_ASSETS: undefined });
    expect(out).toBe(`export KUBEBUILDER_ASSETS='${join(root, '1.37.1')}'\n`);
  });

  it('names the three ways to get the binaries when nothing provides them', async () => {
    const empty = join(scratch, 'empty');
    const run = scaffold(['use', '--bin-dir', empty, '-p', 'path'], { KUBEBUILDER_ASSETS: undefined, PATH: '/nonexistent' });
    await expect(run).rejects.toThrow(CliError);
    await expect(run).rejects.toThrow(/KUBEBUILDER_ASSETS[\s\S]*scaffold envtest use[\s\S]*install Go/);
  });

  it('rejects an unknown print format', async () => {
    await expect(scaffold(['use', '-p', 'yaml'])).rejects.toThrow(/--print must be one of overview, path, env/);
  });
});

describe('scaffold envtest start', () => {
  it('runs a control plane, writes a working kubeconfig, and cleans up when stopped', async () => {
    const kubeconfig = join(scratch, 'kubeconfig');
    const ac = new AbortController();
    const out: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      out.push(String(chunk));
      return true;
    });
    const errSpy = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    let running: Promise<void> | undefined;
    try {
      running = runEnvtestStart({ kubeconfigOut: kubeconfig }, ac.signal);
      await vi.waitFor(() => expect(out.join('')).toMatch(/Control plane ready/), { timeout: 90_000, interval: 100 });
    } finally {
      spy.mockRestore();
      errSpy.mockRestore();
    }
    const printed = out.join('');
    expect(printed).toContain(`kubeconfig: ${kubeconfig}`);
    const kc = new k8s.KubeConfig();
    kc.loadFromFile(kubeconfig);
    const server = kc.getCurrentCluster()!.server;
    expect(printed).toContain(`server:     ${server}`);
    expect((await kc.makeApiClient(k8s.CoreV1Api).readNamespace({ name: 'kube-system' })).metadata?.name).toBe('kube-system');
    // The apiserver's command line names the environment's temp dir.
    const [apiserver] = processesMentioning(`--secure-port=${new URL(server).port}`);
    const tempDir = /--cert-dir=(\S+)\/certs/.exec(apiserver ?? '')?.[1];
    expect(tempDir).toMatch(/kubescaffold-envtest-/);

    ac.abort();
    await running;
    // The user asked for this file, so it stays; the control plane and its temp dir are gone.
    expect(existsSync(kubeconfig)).toBe(true);
    expect(processesMentioning(tempDir!)).toEqual([]);
    expect(existsSync(tempDir!)).toBe(false);
  }, 120_000);

  it('refuses, before starting anything, to overwrite a kubeconfig that holds other clusters', async () => {
    const file = join(scratch, 'real-kubeconfig');
    await writeFile(file, 'apiVersion: v1\nkind: Config\nclusters:\n- name: prod\n  cluster: {server: "https://prod:6443"}\n');
    const errSpy = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const outSpy = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      await expect(runEnvtestStart({ kubeconfigOut: file }, new AbortController().signal)).rejects.toThrow(/refusing to overwrite/);
    } finally {
      errSpy.mockRestore();
      outSpy.mockRestore();
    }
    expect(readFileSync(file, 'utf8')).toContain('prod');
  });
});
