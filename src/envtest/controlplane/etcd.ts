/** etcd for one control plane: plain HTTP on loopback, no auth, no fsync (test data is disposable). */
import { get } from 'node:http';
import { SupervisedProcess } from './process.js';
import { pollUntil } from './wait.js';

export interface EtcdConfig {
  binary: string;
  dataDir: string;
  clientPort: number;
  peerPort: number;
  attachOutput?: boolean;
  /** Removed by etcd's supervisor if the test process dies without stopping us (etcd stops last). */
  removeOnOrphan?: string;
}

/** envtest's etcd flags (controlplane/etcd.go), with every URL on 127.0.0.1. */
export function etcdArgs(c: EtcdConfig): string[] {
  const client = `http://127.0.0.1:${c.clientPort}`;
  const peer = `http://127.0.0.1:${c.peerPort}`;
  return [
    `--data-dir=${c.dataDir}`,
    `--listen-client-urls=${client}`,
    `--advertise-client-urls=${client}`,
    `--listen-peer-urls=${peer}`,
    `--initial-advertise-peer-urls=${peer}`,
    `--initial-cluster=default=${peer}`,
    '--unsafe-no-fsync=true',
    // A single member has no peers to lose; short raft timers only make its first election, and so its start, quicker.
    '--heartbeat-interval=10',
    '--election-timeout=100',
  ];
}

function healthy(url: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const req = get(`${url}/health`, { timeout: 2000 }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString('utf8')));
      res.on('end', () => resolve(res.statusCode === 200 && /"health"\s*:\s*"true"/.test(body)));
    });
    req.on('timeout', () => req.destroy(new Error('etcd /health timed out')));
    req.on('error', reject);
  });
}

export class Etcd {
  private constructor(
    readonly url: string,
    readonly process: SupervisedProcess,
  ) {}

  /** Starts etcd and waits until /health reports healthy. */
  static async start(c: EtcdConfig, timeoutMs: number): Promise<Etcd> {
    const proc = SupervisedProcess.spawn({
      name: 'etcd',
      command: c.binary,
      args: etcdArgs(c),
      attachOutput: c.attachOutput,
      removeOnOrphan: c.removeOnOrphan,
    });
    const etcd = new Etcd(`http://127.0.0.1:${c.clientPort}`, proc);
    try {
      await pollUntil(() => healthy(etcd.url), { what: `etcd at ${etcd.url}/health`, timeoutMs, process: proc });
    } catch (err) {
      await proc.stop(5000);
      throw err;
    }
    return etcd;
  }

  stop(timeoutMs?: number): Promise<void> {
    return this.process.stop(timeoutMs);
  }
}
