/**
 * Waiting for another process's build of the control-plane binaries: the wait names the pid and what it builds, says
 * how long it has lasted while it lasts, and ends as soon as that process finishes or dies.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { appendFile, chmod, mkdir, mkdtemp, readFile, rm, unlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildBinaries } from '../../src/envtest/binaries/build.js';
import { eventually } from '../support/eventually.js';

const WHAT = 'kube-apiserver and etcd of Kubernetes 1.37.1';

/** What a finished build leaves in the cache: the binaries and, from a builder that says so, its build-info.json. */
async function fillCache(root: string, info?: { pid: number; buildSeconds: number }): Promise<void> {
  await mkdir(join(root, '1.37.1'), { recursive: true });
  for (const bin of ['kube-apiserver', 'etcd']) {
    await writeFile(join(root, '1.37.1', bin), '#!/bin/sh\n');
    await chmod(join(root, '1.37.1', bin), 0o755);
  }
  if (info) await writeFile(join(root, '1.37.1', 'build-info.json'), JSON.stringify({ kubernetes: '1.37.1', ...info }));
}

describe('buildBinaries while another process builds', () => {
  let root: string;
  const owner = () => spawn('sleep', ['600'], { stdio: 'ignore' });
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'build-wait-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('names the pid and what it builds, reports the time waited, and ends when that build is done', async () => {
    const other = owner();
    try {
      await writeFile(join(root, '.build-1.37.1.lock'), String(other.pid));
      const lines: string[] = [];
      const built = buildBinaries({
        kubernetesVersion: '1.37.1',
        cacheRoot: root,
        heartbeatSeconds: 0.05,
        progress: (l) => lines.push(l),
      });
      await eventually(() => lines.some((l) => l.includes('still waiting')), 'a line saying how long it has waited');
      expect(lines[0]).toBe(`Another process (pid ${other.pid}) is building ${WHAT} from source; waiting for it…`);
      expect(lines[1]).toMatch(
        new RegExp(`^ {6}… still waiting for pid ${other.pid} to build ${WHAT}: [\\d.]+s so far$`),
      );
      await fillCache(root, { pid: other.pid!, buildSeconds: 1140.2 });
      await unlink(join(root, '.build-1.37.1.lock'));
      await expect(built).resolves.toMatchObject({ dir: join(root, '1.37.1'), seconds: 0 });
      expect(lines.at(-1)).toMatch(new RegExp(`^pid ${other.pid} built ${WHAT} in 19m00s \\(waited [\\d.]+s\\)$`));
    } finally {
      other.kill('SIGKILL');
    }
  });

  it("shows the builder's steps from the log its lock names, as they come, instead of only the time waited", async () => {
    const other = owner();
    try {
      const log = join(root, 'logs', 'build-1.37.1-2026-12-07T16-44-31-647Z.log');
      await mkdir(join(root, 'logs'));
      await writeFile(
        log,
        '### [1/6] Checking the Go toolchain\ngo: downloading\n### [4/6] Compiling kube-apiserver\n###       … [4/6] 5m00s, 800 packages compiled\n',
      );
      await writeFile(join(root, '.build-1.37.1.lock'), `${other.pid}\n${log}\n`);
      const lines: string[] = [];
      const built = buildBinaries({
        kubernetesVersion: '1.37.1',
        cacheRoot: root,
        heartbeatSeconds: 0.05,
        progress: (l) => lines.push(l),
      });
      await eventually(() => lines.length >= 3, 'the wait, the step the build is at and its latest line');
      expect(lines.slice(0, 3)).toEqual([
        `Another process (pid ${other.pid}) is building ${WHAT} from source; waiting for it… Its steps follow (log: ${log}).`,
        `      [pid ${other.pid}] [4/6] Compiling kube-apiserver`,
        `      [pid ${other.pid}]       … [4/6] 5m00s, 800 packages compiled`,
      ]);
      // The go commands' own output is not shown; the builder's progress lines are, in order.
      await appendFile(
        log,
        'k8s.io/api/core/v1\n###       … [4/6] 5m30s, 812 packages compiled\n### [5/6] Building etcd v3.6.12',
      );
      await eventually(() => lines.some((l) => l.includes('812 packages')), 'the heartbeat of the build');
      await appendFile(log, '\n');
      await eventually(() => lines.some((l) => l.includes('[5/6]')), 'the next step, once its line is complete');
      expect(lines.filter((l) => l.startsWith('      [pid'))).toEqual([
        `      [pid ${other.pid}] [4/6] Compiling kube-apiserver`,
        `      [pid ${other.pid}]       … [4/6] 5m00s, 800 packages compiled`,
        `      [pid ${other.pid}]       … [4/6] 5m30s, 812 packages compiled`,
        `      [pid ${other.pid}] [5/6] Building etcd v3.6.12`,
      ]);
      await fillCache(root, { pid: other.pid!, buildSeconds: 61 });
      await unlink(join(root, '.build-1.37.1.lock'));
      await built;
      expect(lines.at(-1)).toMatch(new RegExp(`^pid ${other.pid} built ${WHAT} in 1m01s \\(waited [\\d.]+s\\)$`));
    } finally {
      other.kill('SIGKILL');
    }
  });

  it("follows an older builder's newest log, which its lock does not name", async () => {
    const other = owner();
    try {
      await mkdir(join(root, 'logs'));
      const older = join(root, 'logs', 'build-1.37.1-2026-12-01T10-00-00-000Z.log');
      const current = join(root, 'logs', 'build-1.37.1-2026-12-07T16-44-31-647Z.log');
      await writeFile(older, '### Kubernetes 1.37.1 control plane binaries are in /gone (built in 18m00s)\n');
      await utimes(older, new Date('2026-12-01T10:18:00Z'), new Date('2026-12-01T10:18:00Z'));
      await writeFile(join(root, '.build-1.37.1.lock'), String(other.pid));
      await writeFile(current, "### [3/6] Resolving kube-apiserver's dependencies\n");
      const lines: string[] = [];
      const built = buildBinaries({ kubernetesVersion: '1.37.1', cacheRoot: root, progress: (l) => lines.push(l) });
      await eventually(() => lines.length >= 2, 'the wait and the step the build is at');
      expect(lines[0]).toContain(`Its steps follow (log: ${current}).`);
      expect(lines[1]).toBe(`      [pid ${other.pid}] [3/6] Resolving kube-apiserver's dependencies`);
      await fillCache(root);
      await unlink(join(root, '.build-1.37.1.lock'));
      await built;
      // No build-info.json naming the builder: no pid is named rather than perhaps the wrong one.
      expect(lines.at(-1)).toMatch(new RegExp(`^Another process built ${WHAT} \\(waited [\\d.]+s\\)$`));
    } finally {
      other.kill('SIGKILL');
    }
  });

  it('names the process that built, not one that held the lock afterwards only to find the binaries there', async () => {
    const builder = owner();
    const waiter = owner();
    try {
      await writeFile(join(root, '.build-1.37.1.lock'), String(builder.pid));
      const lines: string[] = [];
      const built = buildBinaries({
        kubernetesVersion: '1.37.1',
        cacheRoot: root,
        heartbeatSeconds: 0.05,
        progress: (l) => lines.push(l),
      });
      await eventually(() => lines.length > 0, 'the wait to be reported');
      // The builder finishes; another waiter takes the lock to find the binaries, then lets go.
      await fillCache(root, { pid: builder.pid!, buildSeconds: 1140 });
      await writeFile(join(root, '.build-1.37.1.lock'), String(waiter.pid));
      await eventually(
        () => lines.some((l) => l.includes(`still waiting for pid ${waiter.pid}`)),
        'the wait on the other waiter',
      );
      await unlink(join(root, '.build-1.37.1.lock'));
      await built;
      expect(lines.filter((l) => l.startsWith('Another process'))).toEqual([
        `Another process (pid ${builder.pid}) is building ${WHAT} from source; waiting for it…`,
      ]);
      expect(lines.at(-1)).toMatch(new RegExp(`^pid ${builder.pid} built ${WHAT} in 19m00s \\(waited [\\d.]+s\\)$`));
    } finally {
      builder.kill('SIGKILL');
      waiter.kill('SIGKILL');
    }
  });

  it('takes over as soon as the process it waits for dies, and says so', async () => {
    const other = owner();
    await writeFile(join(root, '.build-1.37.1.lock'), String(other.pid));
    const lines: string[] = [];
    // No Go on PATH: the build it takes over fails at its first step, which shows that it began.
    const built = buildBinaries({
      kubernetesVersion: '1.37.1',
      cacheRoot: root,
      env: { PATH: join(root, 'no-go') },
      progress: (l) => lines.push(l),
    });
    await eventually(() => lines.length > 0, 'the wait to be reported');
    other.kill('SIGKILL');
    await once(other, 'exit');
    await expect(built).rejects.toThrow();
    expect(lines.slice(0, 4)).toEqual([
      `Another process (pid ${other.pid}) is building ${WHAT} from source; waiting for it…`,
      `pid ${other.pid} is gone and left its lock; taking over the build of ${WHAT}`,
      expect.stringMatching(/^Building kube-apiserver v1\.37\.1 and etcd v[\d.]+ from the Go module proxy/),
      '[1/6] Checking the Go toolchain',
    ]);
  });

  it('says which step runs and for how long while a step of its own build lasts', async () => {
    // A `go` that answers its first command only once the test creates `proceed`, and fails the next one.
    const bin = join(root, 'bin');
    await mkdir(bin);
    const proceed = join(root, 'proceed');
    await writeFile(
      join(bin, 'go'),
      `#!/bin/sh\nwhile [ ! -e ${proceed} ]; do sleep 0.01; done\n[ "$1" = env ] && echo go1.26.0 && exit 0\nexit 1\n`,
    );
    await chmod(join(bin, 'go'), 0o755);
    const lines: string[] = [];
    const built = buildBinaries({
      kubernetesVersion: '1.37.1',
      cacheRoot: root,
      heartbeatSeconds: 0.05,
      env: { PATH: `${bin}:/usr/bin:/bin` },
      progress: (l) => lines.push(l),
    });
    await eventually(() => lines.some((l) => l.startsWith('      … ')), 'a line while the first step lasts');
    // Its lock names its log, and the log holds its progress lines, for processes that wait to show.
    const [pid, log] = (await readFile(join(root, '.build-1.37.1.lock'), 'utf8')).split('\n');
    expect([pid, log]).toEqual([String(process.pid), expect.stringMatching(/\/logs\/build-1\.37\.1-.*\.log$/)]);
    const written = (await readFile(log!, 'utf8')).split('\n').filter((l) => l.startsWith('### '));
    expect(written.slice(0, 3)).toEqual([
      expect.stringMatching(/^### Building kube-apiserver v1\.37\.1 and etcd v[\d.]+ from the Go module proxy/),
      '### [1/6] Checking the Go toolchain',
      expect.stringMatching(/^### {7}… \[1\/6\] [\d.]+s \(building /),
    ]);
    await writeFile(proceed, '');
    await expect(built).rejects.toThrow();
    expect(lines.find((l) => l.startsWith('      … '))).toMatch(
      new RegExp(`^ {6}… \\[1/6\\] [\\d.]+s \\(building ${WHAT}, total [\\d.]+s\\)$`),
    );
  });
});
