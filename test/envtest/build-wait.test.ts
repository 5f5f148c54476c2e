/**
 * Waiting for another process's build of the control-plane binaries: the wait names the pid and what it builds, says
 * how long it has lasted while it lasts, and ends as soon as that process finishes or dies.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmod, mkdir, mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildBinaries } from '../../src/envtest/binaries/build.js';
import { eventually } from '../support/eventually.js';

const WHAT = 'kube-apiserver and etcd of Kubernetes 1.37.1';

async function fillCache(root: string): Promise<void> {
  await mkdir(join(root, '1.37.1'), { recursive: true });
  for (const bin of ['kube-apiserver', 'etcd']) {
    await writeFile(join(root, '1.37.1', bin), '#!/bin/sh\n');
    await chmod(join(root, '1.37.1', bin), 0o755);
  }
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
      await fillCache(root);
      await unlink(join(root, '.build-1.37.1.lock'));
      await expect(built).resolves.toMatchObject({ dir: join(root, '1.37.1'), seconds: 0 });
      expect(lines.at(-1)).toMatch(new RegExp(`^pid ${other.pid} built ${WHAT} \\(waited [\\d.]+s\\)$`));
    } finally {
      other.kill('SIGKILL');
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
    await writeFile(proceed, '');
    await expect(built).rejects.toThrow();
    expect(lines.find((l) => l.startsWith('      … '))).toMatch(
      new RegExp(`^ {6}… \\[1/6\\] [\\d.]+s \\(building ${WHAT}, total [\\d.]+s\\)$`),
    );
  });
});
