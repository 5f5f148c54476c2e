import { createServer, type Server } from 'node:https';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { TinyCA } from '../../../src/runtime/certs/tinyca.js';
import { isConfigurationError, isTimeoutError } from '../../../src/runtime/errors.js';
import { newLogger } from '../../../src/runtime/log/index.js';
import { Manager } from '../../../src/runtime/manager/index.js';
import { ConfigMaps } from '../../../src/runtime/rest/index.js';
import type { KubeConfig } from '../../../src/runtime/rest/index.js';
import { unreachableKubeConfig } from '../kubeconfig.js';

// A stand-in API server on loopback whose certificate `ca` signed; it answers every request with `status`.
const servers: Server[] = [];
const netServers: NetServer[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
  for (const s of netServers.splice(0)) s.close();
});

const REASONS: Record<number, string> = { 200: 'Success', 401: 'Unauthorized', 403: 'Forbidden' };

async function standIn(status: number): Promise<{ url: string; ca: TinyCA; requests: string[] }> {
  const ca = TinyCA.create({ commonName: 'stand-in-ca' });
  const leaf = ca.issue({ commonName: '127.0.0.1', ipAddresses: ['127.0.0.1'], usage: 'server' });
  const requests: string[] = [];
  const server = createServer({ cert: leaf.certPem, key: leaf.keyPem }, (req, res) => {
    requests.push(req.url ?? '');
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: status, reason: REASONS[status] }),
    );
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, ca, requests };
}

/** A manager with one watched kind, so that it will call the server, started until it settles. */
async function startWatching(kubeConfig: KubeConfig, serverCheckTimeout?: number): Promise<unknown> {
  const mgr = new Manager({
    kubeConfig,
    log: newLogger({ sink: () => {} }),
    ...(serverCheckTimeout !== undefined ? { serverCheckTimeout } : {}),
    cache: { syncTimeout: 60_000 },
  });
  mgr.getCache().getInformer(ConfigMaps);
  return mgr.start(new AbortController().signal).then(
    () => undefined,
    (err: unknown) => err,
  );
}

describe("the manager's start-up check of the API server", () => {
  it('gives up on a server nobody listens on after serverCheckTimeout, naming the server and what to check', async () => {
    const err = await startWatching(unreachableKubeConfig(), 300);
    expect(isTimeoutError(err)).toBe(true);
    expect((err as Error).message).toMatch(
      /^cannot reach the API server https:\/\/127\.0\.0\.1:1 \(tried for 300 ms\): .*ECONNREFUSED.*is the API server running/,
    );
  });

  it('gives up on a server that accepts connections and never answers at serverCheckTimeout, well before the socket timeout', async () => {
    // A listener that takes the TCP connection and never starts the TLS handshake: the socket's own timeout is 30 s.
    const silent = createNetServer(() => {});
    netServers.push(silent);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const url = `https://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    const err = await startWatching({ server: url, auth: { token: 't' } }, 300);
    expect(isTimeoutError(err)).toBe(true);
    expect((err as Error).message).toBe(
      `the API server ${url} did not answer within 300 ms: it accepts connections but sends nothing back; is the kubeconfig's server address the API server's?`,
    );
  }, 10_000);

  it('fails at once, well inside a long timeout, on a certificate the kubeconfig does not trust, naming certificate-authority', async () => {
    const { url, requests } = await standIn(200);
    const other = TinyCA.create({ commonName: 'some-other-ca' });
    const err = await startWatching({ server: url, tls: { caData: other.certPem }, auth: { token: 't' } }, 600_000);
    expect(isConfigurationError(err)).toBe(true);
    expect((err as Error).message).toContain(`cannot trust the API server: ${url}`);
    expect((err as Error).message).toContain('certificate-authority');
    expect(requests).toEqual([]);
  });

  it('fails at once when the server rejects the credentials (401), naming the server', async () => {
    const { url, ca } = await standIn(401);
    const err = await startWatching({ server: url, tls: { caData: ca.certPem }, auth: { token: 'wrong' } }, 600_000);
    expect(isConfigurationError(err)).toBe(true);
    expect((err as Error).message).toBe(
      `the API server ${url} rejected the kubeconfig's credentials (401 Unauthorized): check the user's token, client certificate or exec plugin`,
    );
  });

  it('passes on any answer from the server (here 403 for /version), leaving the kind to the cache sync', async () => {
    const { url, ca, requests } = await standIn(403);
    const mgr = new Manager({
      kubeConfig: { server: url, tls: { caData: ca.certPem }, auth: { token: 't' } },
      log: newLogger({ sink: () => {} }),
      cache: { syncTimeout: 200 },
    });
    mgr.getCache().getInformer(ConfigMaps);
    const err = await mgr.start(new AbortController().signal).catch((e: unknown) => e);
    // Past the check, the informer's list is refused and the start ends at the sync timeout instead.
    expect(requests[0]).toBe('/version');
    expect(requests.some((r) => r.startsWith('/api/v1/configmaps'))).toBe(true);
    expect((err as Error).message).toMatch(/timed out after 200 ms waiting for caches to sync/);
  });

  it('is skipped by a manager that watches nothing and does no leader election, and by serverCheckTimeout 0', async () => {
    const idle = new Manager({ kubeConfig: unreachableKubeConfig(), log: newLogger({ sink: () => {} }) });
    const stop = new AbortController();
    const done = idle.start(stop.signal);
    stop.abort();
    await expect(done).resolves.toBeUndefined();
    const { url, requests } = await standIn(200);
    const unchecked = new Manager({
      kubeConfig: { server: url, auth: { token: 't' } },
      log: newLogger({ sink: () => {} }),
      serverCheckTimeout: 0,
      cache: { syncTimeout: 200 },
    });
    unchecked.getCache().getInformer(ConfigMaps);
    await unchecked.start(new AbortController().signal).catch(() => {});
    expect(requests).not.toContain('/version');
  });
});
