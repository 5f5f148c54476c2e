import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as k8s from '@kubernetes/client-node';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { registerEnvtestCommand, runEnvtestStart } from '../../src/cli/envtest.js';
import { CliError } from '../../src/cli/errors.js';
import { TinyCA } from '../../src/runtime/certs/tinyca.js';
import { loadKubeConfig } from '../../src/runtime/clientcmd/index.js';
import { ConfigMaps, newClient } from '../../src/runtime/rest/index.js';
import { findBinaries, type Binaries } from '../../src/envtest/index.js';
import { hostPlatform } from '../../src/envtest/binaries/platform.js';
import { processesMentioning } from './helpers.js';
import { ConnectProxy, fakeBinaries, makeArchive, Mirror, writeFakeBinaries } from './mirror.js';
import { CONTROL_PLANE_START_MS } from '../support/limits.js';
import { eventually } from '../support/eventually.js';

const scaffoldBin = fileURLToPath(new URL('../../bin/scaffold.js', import.meta.url));

const SHARDED_LIST_GATE = 'feature-gates=ShardedListAndWatch=true';

/**
 * The shardInfo of a ConfigMap list with a shardSelector, through the kubeconfig `file`: the selector echoed when
 * kube-apiserver runs with ShardedListAndWatch on, undefined when it ignores the selector (the gate off).
 */
async function shardInfoOfList(file: string): Promise<{ selector?: string } | undefined> {
  const client = newClient(loadKubeConfig({ kubeconfig: file }));
  try {
    const selector = "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')";
    return (await client.list(ConfigMaps, { namespace: 'default', shardSelector: selector })).metadata.shardInfo;
  } finally {
    client.close();
  }
}

/** Runs node with `args` and exactly `env`; resolves with its exit code and output. */
function execNode(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { env }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr });
    });
  });
}

/** Processes below `pid` (children, grandchildren, ...) with their command lines (Linux /proc). */
function descendantsOf(pid: number): Array<{ pid: number; cmd: string }> {
  const parents = new Map<number, number>();
  for (const d of readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
    try {
      // The parent pid is the 4th field of /proc/<pid>/stat, after the command in parentheses.
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      parents.set(Number(d), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // exited while we looked
    }
  }
  const below = (p: number): boolean => {
    for (let cur = parents.get(p); cur !== undefined && cur > 1; cur = parents.get(cur)) if (cur === pid) return true;
    return false;
  };
  return [...parents.keys()].filter(below).flatMap((p) => {
    try {
      return [{ pid: p, cmd: readFileSync(`/proc/${p}/cmdline`, 'utf8').replace(/\0/g, ' ') }];
    } catch {
      return [];
    }
  });
}

/** Whether `pid` runs: a zombie (exited, not yet reaped by an init that may never reap it) does not. */
function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

let bins: Binaries;
let scratch: string;

beforeAll(async () => {
  bins = await findBinaries({ env: {} });
  scratch = await mkdtemp(join(tmpdir(), 'envtest-cli-test-'));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** Runs `scaffold envtest ...` in-process with `env` overlaid on process.env; returns what it printed. */
async function run(
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<{ out: string; err: string }> {
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
  const out: string[] = [];
  const err: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    out.push(String(chunk));
    return true;
  });
  const errSpy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    err.push(String(chunk));
    return true;
  });
  Object.assign(process.env, env);
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete process.env[k];
  try {
    const program = new Command('scaffold').exitOverride();
    registerEnvtestCommand(program);
    await program.parseAsync(['envtest', ...args], { from: 'user' });
    return { out: out.join(''), err: err.join('') };
  } finally {
    spy.mockRestore();
    errSpy.mockRestore();
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

/** Runs `scaffold envtest ...` in-process; returns what it printed to stdout. */
async function scaffold(args: string[], env: Record<string, string | undefined> = {}): Promise<string> {
  return (await run(args, env)).out;
}

/** No binaries from the environment, no proxy: what these tests start from. */
const CLEAN_ENV = {
  KUBEBUILDER_ASSETS: undefined,
  TEST_ASSET_KUBE_APISERVER: undefined,
  TEST_ASSET_ETCD: undefined,
  ENVTEST_INSTALLED_ONLY: undefined,
  KUBESCAFFOLD_ENVTEST_INDEX: undefined,
  HTTPS_PROXY: undefined,
  https_proxy: undefined,
  HTTP_PROXY: undefined,
  http_proxy: undefined,
};

describe('scaffold envtest use', () => {
  it('prints the directory of KUBEBUILDER_ASSETS when it is set, and names the source on stderr', async () => {
    const { out, err } = await run(['use', '-p', 'path'], { ...CLEAN_ENV, KUBEBUILDER_ASSETS: bins.dir });
    expect(out).toBe(`${bins.dir}\n`);
    expect(err).toBe(`kube-apiserver and etcd ${bins.version} from KUBEBUILDER_ASSETS: ${bins.dir}\n`);
  });

  it('prints an export line for the cached version under --bin-dir', async () => {
    const root = join(scratch, 'bin-dir');
    await mkdir(join(root, '1.37.1'), { recursive: true });
    await symlink(bins.kubeApiserver, join(root, '1.37.1', 'kube-apiserver'));
    await symlink(bins.etcd, join(root, '1.37.1', 'etcd'));
    const out = await scaffold(['use', '1.37', '--bin-dir', root, '-p', 'env'], CLEAN_ENV);
    expect(out).toBe(`export KUBEBUILDER_ASSETS='${join(root, '1.37.1')}'\n`);
  });

  it('prints TEST_ASSET_* exports for binaries in two directories, and refuses -p path for them', async () => {
    const [a, b] = [join(scratch, 'ta-a'), join(scratch, 'ta-b')];
    await writeFakeBinaries(a, '1.31.0');
    await writeFakeBinaries(b, '1.31.0');
    const env = {
      ...CLEAN_ENV,
      TEST_ASSET_KUBE_APISERVER: join(a, 'kube-apiserver'),
      TEST_ASSET_ETCD: join(b, 'etcd'),
    };
    expect(await scaffold(['use', '-p', 'env'], env)).toBe(
      `export TEST_ASSET_KUBE_APISERVER='${join(a, 'kube-apiserver')}'\nexport TEST_ASSET_ETCD='${join(b, 'etcd')}'\n`,
    );
    await expect(scaffold(['use', '-p', 'path'], env)).rejects.toThrow(
      /different directories, so there is no one path to print; use -p env/,
    );
  });

  it('downloads from --index into --bin-dir, says so, and lists it afterwards', async () => {
    const mirror = await Mirror.start();
    try {
      const here = hostPlatform();
      mirror.publish([
        {
          version: '1.34.1',
          ...here,
          body: await makeArchive(join(scratch, 'cli-1.34.1.tar.gz'), fakeBinaries('1.34.1')),
        },
      ]);
      const root = join(scratch, 'download-root');
      const { out, err } = await run(['use', '1.34', '--bin-dir', root, '--index', mirror.indexUrl], CLEAN_ENV);
      expect(out).toBe(
        `Version: 1.34.1\nSource:  the envtest release index (just downloaded)\nPath:    ${join(root, '1.34.1')}\n`,
      );
      expect(err).toContain(`downloading it from the envtest release index ${mirror.indexUrl}`);
      const listed = await scaffold(['list', '--bin-dir', root, '--index', mirror.indexUrl], CLEAN_ENV);
      expect(listed).toBe(
        `(installed)  v1.34.1  ${here.os}/${here.arch}  ${join(root, '1.34.1')}  (downloaded)\n(available)  v1.34.1  ${here.os}/${here.arch}\n`,
      );
    } finally {
      await mirror.close();
    }
  });

  it('fails with --installed-only on an empty cache, and with an unreachable --index, naming it', async () => {
    const empty = join(scratch, 'empty-i');
    await expect(scaffold(['use', '-i', '--bin-dir', empty], CLEAN_ENV)).rejects.toThrow(
      /--installed-only \(-i, or ENVTEST_INSTALLED_ONLY\) allows neither downloading nor building/,
    );
    const index = 'http://127.0.0.1:1/envtest-releases.yaml';
    const attempt = scaffold(['use', '--bin-dir', empty, '--index', index], CLEAN_ENV);
    await expect(attempt).rejects.toThrow(CliError);
    await expect(attempt).rejects.toThrow(`could not fetch ${index}: connect ECONNREFUSED`);
    expect(existsSync(empty)).toBe(false);
  });

  it('names the ways to get the binaries when nothing provides them', async () => {
    const empty = join(scratch, 'empty');
    // The default index is made unreachable through a proxy nobody listens on: no real network is tried.
    const attempt = scaffold(['use', '--bin-dir', empty, '-p', 'path'], {
      ...CLEAN_ENV,
      PATH: '/nonexistent',
      HTTPS_PROXY: 'http://127.0.0.1:1',
    });
    await expect(attempt).rejects.toThrow(CliError);
    await expect(attempt).rejects.toThrow(
      /envtest release index could not be read[\s\S]*no `go` on PATH[\s\S]*scaffold envtest use[\s\S]*KUBEBUILDER_ASSETS[\s\S]*install Go/,
    );
  });

  it('rejects an unknown print format', async () => {
    await expect(scaffold(['use', '-p', 'yaml'])).rejects.toThrow(/--print must be one of overview, path, env/);
  });
});

describe('scaffold envtest use over HTTPS (a separate process, for NODE_EXTRA_CA_CERTS)', () => {
  it('trusts a private CA only through NODE_EXTRA_CA_CERTS, directly and through HTTPS_PROXY, and leaves the cache untouched when it cannot', async () => {
    const ca = TinyCA.create({ commonName: 'envtest mirror CA' });
    const serving = ca.issue({ commonName: '127.0.0.1', ipAddresses: ['127.0.0.1'], usage: 'server' });
    const mirror = await Mirror.start(serving);
    const proxy = await ConnectProxy.start();
    try {
      const here = hostPlatform();
      mirror.publish([
        {
          version: '1.34.1',
          ...here,
          body: await makeArchive(join(scratch, 'https-1.34.1.tar.gz'), fakeBinaries('1.34.1')),
        },
      ]);
      const caFile = join(scratch, 'ca.pem');
      await writeFile(caFile, ca.certPem);
      const root = join(scratch, 'https-root');
      const args = [
        scaffoldBin,
        'envtest',
        'use',
        '1.34.1',
        '--bin-dir',
        root,
        '--index',
        mirror.indexUrl,
        '-p',
        'path',
      ];
      const env = { PATH: process.env.PATH ?? '', HOME: scratch };

      const untrusted = await execNode(args, env);
      expect(untrusted.code).toBe(1);
      expect(untrusted.stderr).toMatch(
        new RegExp(`could not fetch ${mirror.indexUrl}: .*certificate.*NODE_EXTRA_CA_CERTS`),
      );
      expect(existsSync(join(root, '1.34.1'))).toBe(false);

      const trusted = await execNode(args, { ...env, NODE_EXTRA_CA_CERTS: caFile });
      expect(trusted).toMatchObject({ code: 0, stdout: `${join(root, '1.34.1')}\n` });

      // The same over HTTPS_PROXY: TLS inside the CONNECT tunnel, checked against the same CA.
      await rm(join(root, '1.34.1'), { recursive: true });
      const proxied = await execNode(args, { ...env, NODE_EXTRA_CA_CERTS: caFile, HTTPS_PROXY: proxy.url });
      expect(proxied).toMatchObject({ code: 0, stdout: `${join(root, '1.34.1')}\n` });
      expect(proxy.targets).toEqual([new URL(mirror.baseUrl).host, new URL(mirror.baseUrl).host]);
    } finally {
      await mirror.close();
      await proxy.close();
    }
  });
});

describe('scaffold envtest start', () => {
  it(
    'runs a control plane with the --apiserver-arg flags, writes a working kubeconfig, and cleans up when stopped',
    async () => {
      const kubeconfig = join(scratch, 'kubeconfig');
      const ac = new AbortController();
      const out: string[] = [];
      const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
        out.push(String(chunk));
        return true;
      });
      // Its stderr is kept until it has stopped: it says there that it is stopping.
      const errOut: string[] = [];
      const errSpy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
        errOut.push(String(chunk));
        return true;
      });
      let running: Promise<void> | undefined;
      try {
        running = runEnvtestStart({ kubeconfigOut: kubeconfig, apiserverArg: [SHARDED_LIST_GATE] }, ac.signal);
        await vi.waitFor(() => expect(out.join('')).toMatch(/Control plane ready/), {
          timeout: CONTROL_PLANE_START_MS,
          interval: 100,
        });
      } finally {
        spy.mockRestore();
      }
      // Restored once the control plane has stopped, or when the test ends however it ends.
      onTestFinished(() => errSpy.mockRestore());
      const printed = out.join('');
      expect(printed).toContain(`kubeconfig: ${kubeconfig}`);
      const kc = new k8s.KubeConfig();
      kc.loadFromFile(kubeconfig);
      const server = kc.getCurrentCluster()!.server;
      expect(printed).toContain(`server:     ${server}`);
      expect(printed).toContain('apiserver:  --feature-gates=ShardedListAndWatch=true\n');
      expect((await kc.makeApiClient(k8s.CoreV1Api).readNamespace({ name: 'kube-system' })).metadata?.name).toBe(
        'kube-system',
      );
      // The apiserver's command line names the environment's temp dir.
      const [apiserver] = processesMentioning(`--secure-port=${new URL(server).port}`);
      const tempDir = /--cert-dir=(\S+)\/certs/.exec(apiserver ?? '')?.[1];
      expect(tempDir).toMatch(/kubescaffold-envtest-/);
      // The gate is on: the server filters by the selector and says so.
      expect(apiserver).toContain(' --feature-gates=ShardedListAndWatch=true ');
      expect(await shardInfoOfList(kubeconfig)).toEqual({ selector: expect.stringMatching(/^shardRange\(/) });

      ac.abort();
      try {
        await running;
      } finally {
        errSpy.mockRestore();
      }
      expect(errOut.join('')).toContain('Stopping the control plane');
      // The user asked for this file, so it stays; the control plane and its temp dir are gone.
      expect(existsSync(kubeconfig)).toBe(true);
      expect(processesMentioning(tempDir!)).toEqual([]);
      expect(existsSync(tempDir!)).toBe(false);
    },
    2 * CONTROL_PLANE_START_MS,
  );

  it('refuses, before starting anything, to overwrite a kubeconfig that holds other clusters', async () => {
    const file = join(scratch, 'real-kubeconfig');
    await writeFile(
      file,
      'apiVersion: v1\nkind: Config\nclusters:\n- name: prod\n  cluster: {server: "https://prod:6443"}\n',
    );
    const errSpy = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const outSpy = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      await expect(runEnvtestStart({ kubeconfigOut: file }, new AbortController().signal)).rejects.toThrow(
        /refusing to overwrite/,
      );
    } finally {
      errSpy.mockRestore();
      outSpy.mockRestore();
    }
    expect(readFileSync(file, 'utf8')).toContain('prod');
  });
});

describe('scaffold envtest start --background and envtest stop', () => {
  it(
    'starts a control plane with the --apiserver-arg flags that outlives the command (its kubeconfig in a folder it creates), says so when asked again, and stop ends it and removes its files',
    async () => {
      const kubeconfig = join(scratch, 'bin', 'background.kubeconfig');
      const env = { ...process.env, NO_COLOR: '1' };
      try {
        const started = await execNode(
          [
            scaffoldBin,
            'envtest',
            'start',
            '--background',
            '--kubeconfig-out',
            kubeconfig,
            '--apiserver-arg',
            SHARDED_LIST_GATE,
          ],
          env,
        );
        expect(started, started.stderr).toMatchObject({ code: 0 });
        expect(started.stdout).toContain(`kubeconfig: ${kubeconfig}`);
        const pid = Number(readFileSync(`${kubeconfig}.pid`, 'utf8'));
        // The command has exited; the control plane answers through the kubeconfig it wrote.
        const kc = new k8s.KubeConfig();
        kc.loadFromFile(kubeconfig);
        expect((await kc.makeApiClient(k8s.CoreV1Api).readNamespace({ name: 'default' })).metadata?.name).toBe(
          'default',
        );
        expect(await shardInfoOfList(kubeconfig)).toEqual({ selector: expect.stringMatching(/^shardRange\(/) });

        const again = await execNode(
          [scaffoldBin, 'envtest', 'start', '--background', '--kubeconfig-out', kubeconfig],
          env,
        );
        expect(again).toMatchObject({ code: 0 });
        expect(again.stdout).toContain(`already runs (pid ${pid})`);

        const stopped = await execNode([scaffoldBin, 'envtest', 'stop', '--kubeconfig-out', kubeconfig], env);
        expect(stopped, stopped.stderr).toMatchObject({ code: 0 });
        expect(stopped.stdout).toContain(`Stopped the control plane (pid ${pid})`);
        expect(processesMentioning(kubeconfig)).toEqual([]);
        for (const f of [kubeconfig, `${kubeconfig}.pid`, `${kubeconfig}.log`]) expect(existsSync(f), f).toBe(false);
      } finally {
        await execNode([scaffoldBin, 'envtest', 'stop', '--kubeconfig-out', kubeconfig], env);
      }
    },
    2 * CONTROL_PLANE_START_MS,
  );

  it('refuses a malformed, repeated or reserved --apiserver-arg in one line, exit 1, before starting anything, in either mode', async () => {
    const env = { ...process.env, NO_COLOR: '1' };
    const kubeconfig = join(scratch, 'refused.kubeconfig');
    for (const [args, message] of [
      [
        ['feature-gates'],
        'Error: --apiserver-arg takes key=value, a kube-apiserver flag without its dashes (e.g. feature-gates=ShardedListAndWatch=true), not "feature-gates"',
      ],
      [
        ['=true'],
        'Error: --apiserver-arg takes key=value, a kube-apiserver flag without its dashes (e.g. feature-gates=ShardedListAndWatch=true), not "=true"',
      ],
      [
        ['--v=2'],
        'Error: --apiserver-arg --v=2: kube-apiserver flag names are given without their dashes (feature-gates, not --feature-gates): "--v"',
      ],
      [
        ['secure-port=6443'],
        'Error: --apiserver-arg secure-port=6443: envtest sets --secure-port itself: the admin kubeconfig and the readiness check use the free port envtest picks',
      ],
      [
        ['feature-gates=A=true', 'feature-gates=B=true'],
        'Error: --apiserver-arg gives feature-gates twice ("A=true", "B=true"): give it once; a list such as feature-gates takes comma-separated values (feature-gates=A=true,B=true)',
      ],
    ] as const) {
      const flags = args.flatMap((a) => ['--apiserver-arg', a]);
      for (const mode of [[], ['--background']]) {
        const r = await execNode(
          [scaffoldBin, 'envtest', 'start', ...mode, '--kubeconfig-out', kubeconfig, ...flags],
          env,
        );
        expect([r.code, r.stderr, r.stdout], `${mode.join(' ')} ${flags.join(' ')}`).toEqual([1, `${message}\n`, '']);
        for (const f of [kubeconfig, `${kubeconfig}.pid`, `${kubeconfig}.log`]) expect(existsSync(f), f).toBe(false);
      }
    }
  });

  it(
    'stops by itself when its etcd dies, saying which and how, stops kube-apiserver, and envtest stop shows why',
    async () => {
      const kubeconfig = join(scratch, 'bin', 'dying.kubeconfig');
      const env = { ...process.env, NO_COLOR: '1' };
      try {
        const started = await execNode(
          [scaffoldBin, 'envtest', 'start', '--background', '--kubeconfig-out', kubeconfig],
          env,
        );
        expect(started, started.stderr).toMatchObject({ code: 0 });
        const pid = Number(readFileSync(`${kubeconfig}.pid`, 'utf8'));
        const binaries = descendantsOf(pid).filter(
          (p) => p.cmd.startsWith(bins.etcd) || p.cmd.startsWith(bins.kubeApiserver),
        );
        const etcd = binaries.find((p) => p.cmd.startsWith(bins.etcd));
        const apiserver = binaries.find((p) => p.cmd.startsWith(bins.kubeApiserver));
        expect(
          [etcd, apiserver].every((p) => p !== undefined),
          JSON.stringify(binaries),
        ).toBe(true);

        process.kill(etcd!.pid, 'SIGKILL');
        await eventually(() => !isAlive(pid), { what: 'the background control plane to exit', timeoutMs: 60_000 });
        expect(isAlive(apiserver!.pid)).toBe(false);
        const log = readFileSync(`${kubeconfig}.log`, 'utf8');
        expect(log).toContain('Stopping kube-apiserver: etcd exited (killed by SIGKILL) while the control plane ran.');
        expect(log).toContain('the control plane stopped: etcd exited (killed by SIGKILL).');

        const stopped = await execNode([scaffoldBin, 'envtest', 'stop', '--kubeconfig-out', kubeconfig], env);
        expect(stopped, stopped.stderr).toMatchObject({ code: 0 });
        expect(stopped.stdout).toContain('(removed a stale pid file)');
        expect(stopped.stdout).toContain('It had stopped on its own');
        expect(stopped.stdout).toContain('etcd exited (killed by SIGKILL)');
      } finally {
        await execNode([scaffoldBin, 'envtest', 'stop', '--kubeconfig-out', kubeconfig], env);
      }
    },
    2 * CONTROL_PLANE_START_MS,
  );

  it('refuses --background without --kubeconfig-out, and stop with nothing running says so and succeeds', async () => {
    const env = { ...process.env, NO_COLOR: '1' };
    const refused = await execNode([scaffoldBin, 'envtest', 'start', '--background'], env);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('--background needs --kubeconfig-out');
    const nothing = await execNode(
      [scaffoldBin, 'envtest', 'stop', '--kubeconfig-out', join(scratch, 'never-started.kubeconfig')],
      env,
    );
    expect(nothing).toMatchObject({ code: 0 });
    expect(nothing.stdout).toContain('No control plane started with --background runs');
  });
});
