import { createServer, type Server } from 'node:net';
import { describe, expect, it } from 'vitest';
import { Manager, newLogger, type ManagerOptions } from '../../../src/runtime/index.js';
import { runnableFunc } from '../../../src/runtime/manager/index.js';
import { WebhookServer, type WebhookHandler } from '../../../src/runtime/webhook/index.js';
import { unreachableKubeConfig } from '../kubeconfig.js';
import { eventually } from '../../support/eventually.js';
import { freePort } from '../../support/ports.js';

/** The API is never needed here (a caBundle patch just logs its failure). */
const mk = (o: Partial<ManagerOptions> = {}) =>
  new Manager({
    kubeConfig: unreachableKubeConfig(),
    log: newLogger({ level: 'error', sink: () => {} }),
    // No API server here: the start-up check, which a registered webhook turns on, would fail every start.
    serverCheckTimeout: 0,
    ...o,
  });
const hello: WebhookHandler = { handle: async () => ({ hello: true }) };

function listenOn(port: number): Promise<Server | undefined> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(undefined));
    srv.listen(port, '127.0.0.1', () => resolve(srv));
  });
}

describe('Manager and its webhook server', () => {
  it('has no webhook server unless one is given, and says how to give one', () => {
    expect(() => mk().getWebhookServer()).toThrow(
      /pass ManagerOptions.webhookServer \(new WebhookServer\(\{...\}\) from '@kubescaffold\/runtime\/webhook'\)/,
    );
  });

  it('gives its client and logger to the webhook server it runs, and a server belongs to one manager', () => {
    const server = new WebhookServer({ port: 0 });
    mk({ webhookServer: server });
    expect(() => mk({ webhookServer: server })).toThrow('this webhook server already belongs to a manager');
  });

  it('does not serve webhooks when none is registered', async () => {
    const port = await freePort();
    const mgr = mk({ webhookServer: new WebhookServer({ port: port, host: '127.0.0.1' }) });
    const ac = new AbortController();
    const done = mgr.start(ac.signal);
    await mgr.elected();
    const probe = await listenOn(port);
    expect(probe).toBeDefined();
    await new Promise((r) => probe!.close(r));
    ac.abort();
    await done;
  });

  it('serves registered webhooks before other runnables start, and releases the port on stop', async () => {
    const port = await freePort();
    const mgr = mk({ webhookServer: new WebhookServer({ port: port, host: '127.0.0.1' }) });
    mgr.getWebhookServer().register('/hello', hello);
    let listeningWhenOthersStarted: boolean | undefined;
    mgr.add(
      runnableFunc(async (signal) => {
        listeningWhenOthersStarted = mgr.getWebhookServer().address() !== undefined;
        await new Promise<void>((r) => signal.addEventListener('abort', () => r(), { once: true }));
      }),
    );
    const ac = new AbortController();
    const done = mgr.start(ac.signal);
    await mgr.elected();
    await eventually(async () => listeningWhenOthersStarted !== undefined, 'the runnable to start');
    expect(listeningWhenOthersStarted).toBe(true);
    await expect(Promise.resolve(mgr.getWebhookServer().startedChecker()())).resolves.toBeUndefined();
    expect(await listenOn(port)).toBeUndefined();
    ac.abort();
    await done;
    const after = await listenOn(port);
    expect(after).toBeDefined();
    await new Promise((r) => after!.close(r));
  });

  it('starts the webhook server when the first webhook is registered after start', async () => {
    const mgr = mk({ webhookServer: new WebhookServer({ port: 0, host: '127.0.0.1' }) });
    const ac = new AbortController();
    const done = mgr.start(ac.signal);
    await mgr.elected();
    mgr.getWebhookServer().register('/late', hello);
    await mgr.getWebhookServer().ready();
    expect(mgr.getWebhookServer().address()?.port).toBeGreaterThan(0);
    ac.abort();
    await done;
  });

  it('fails its start when the webhook port is taken', async () => {
    const taken = (await listenOn(0))!;
    try {
      const mgr = mk({
        webhookServer: new WebhookServer({ port: (taken.address() as { port: number }).port, host: '127.0.0.1' }),
      });
      mgr.getWebhookServer().register('/hello', hello);
      await expect(mgr.start(new AbortController().signal)).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await new Promise((r) => taken.close(r));
    }
  });
});
