// A request that cannot reach the API server says which server, and what in the kubeconfig to fix: an unknown CA
// names certificate-authority, a refused connection the server address. The error keeps Node's code, which the
// reflector's retry decisions read.
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateLocalServingCert } from '../../../src/runtime/webhook/certs.js';
import { ConfigMaps, newClient } from '../../../src/runtime/rest/index.js';
import { freePort } from '../../../src/envtest/index.js';

describe('connection errors', () => {
  const cert = generateLocalServingCert(['127.0.0.1']);
  const other = generateLocalServingCert(['127.0.0.1']);
  const server = https.createServer({ cert: cert.certPem, key: cert.keyPem }, (_req, res) => res.end('{}'));
  let origin = '';
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  async function failure(kc: Parameters<typeof newClient>[0]): Promise<Error & { code?: string }> {
    const client = newClient(kc);
    try {
      await client.get(ConfigMaps, { namespace: 'default', name: 'x' });
      throw new Error('the request succeeded');
    } catch (err) {
      return err as Error & { code?: string };
    } finally {
      client.close();
    }
  }

  it('names the server and certificate-authority when the server is signed by a CA the kubeconfig does not trust', async () => {
    const err = await failure({ server: origin, tls: { caData: other.caPem }, auth: { token: 't' } });
    expect(err.code).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
    expect(err.message).toContain(origin);
    expect(err.message).toContain('certificate-authority');
  });

  it('names the server and its address when nothing listens there', async () => {
    const port = await freePort();
    const err = await failure({
      server: `https://127.0.0.1:${port}`,
      tls: { insecureSkipTLSVerify: true },
      auth: { token: 't' },
    });
    expect(err.code).toBe('ECONNREFUSED');
    expect(err.message).toContain(`https://127.0.0.1:${port}`);
    expect(err.message).toContain("kubeconfig's server address");
  });
});
