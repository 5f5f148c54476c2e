import https from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestEnvironment } from '../../../src/envtest/index.js';
import {
  ClusterRoleBindings,
  ClusterRoles,
  Namespaces,
  ServiceAccounts,
  type RestClient,
} from '../../../src/runtime/rest/index.js';
import { Manager, newClient, ping } from '../../../src/runtime/index.js';
import { eventually } from '../../support/eventually.js';
import { captureLog } from '../../support/logs.js';
import { showOnFailure } from '../../support/failure.js';
import { APPSERVICE_CRD, AppServiceReconciler, AppServices } from './appservice.js';

let env: TestEnvironment;
let api: RestClient;
const managerLog = captureLog('manager');
showOnFailure(managerLog.onFailure);

beforeAll(async () => {
  env = await TestEnvironment.start({ crds: [APPSERVICE_CRD] });
  api = newClient(env.kubeConfig);
});

afterAll(async () => {
  api?.close();
  await env?.stop();
});

async function serviceAccountToken(ns: string, name: string): Promise<string> {
  await api.create(ServiceAccounts, { metadata: { namespace: ns, name } });
  const tr = await api.transport.requestJson<{ status: { token: string } }>({
    method: 'POST',
    path: `/api/v1/namespaces/${ns}/serviceaccounts/${name}/token`,
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 600 } },
  });
  return tr.status.token;
}

function httpsGet(port: number, path: string, token?: string): Promise<{ code: number; body: string }> {
  return new Promise((resolve, reject) => {
    https
      .get(
        {
          host: '127.0.0.1',
          port,
          path,
          rejectUnauthorized: false,
          headers: token ? { Authorization: `Bearer ${token}` } : {},
        },
        (res) => {
          let body = '';
          res.on('data', (d: Buffer) => (body += d.toString()));
          res.on('end', () => resolve({ code: res.statusCode ?? 0, body }));
        },
      )
      .on('error', reject);
  });
}

async function httpGet(port: number, path: string): Promise<{ code: number; body: string }> {
  const r = await fetch(`http://127.0.0.1:${port}${path}`);
  return { code: r.status, body: await r.text() };
}

describe('manager servers on a real control plane', () => {
  it('answers /healthz and /readyz, and serves /metrics over HTTPS only to authorized tokens', async () => {
    const ns = `srv-${process.pid}`;
    await api.create(Namespaces, { metadata: { name: ns } });
    await api.create(ClusterRoles, {
      metadata: { name: `${ns}-metrics-reader` },
      rules: [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }],
    });
    await api.create(ClusterRoleBindings, {
      metadata: { name: `${ns}-metrics-reader` },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: `${ns}-metrics-reader` },
      subjects: [{ kind: 'ServiceAccount', name: 'scraper', namespace: ns }],
    });
    const scraper = await serviceAccountToken(ns, 'scraper');
    const nobody = await serviceAccountToken(ns, 'nobody');

    let ready = false;
    const mgr = new Manager({
      kubeConfig: env.kubeConfig,
      log: managerLog.log,
      healthProbe: { bindAddress: '127.0.0.1:0' },
      metrics: { bindAddress: '127.0.0.1:0' },
      leaderElection: { enabled: true, id: 'servers-test', namespace: ns },
    });
    mgr.addHealthzCheck('healthz', ping);
    mgr.addReadyzCheck('readyz', () => {
      if (!ready) throw new Error('not yet');
    });
    new AppServiceReconciler(mgr.getClient()).setupWithManager(mgr, 'metricsapp');
    const ac = new AbortController();
    const done = mgr.start(ac.signal);
    try {
      await eventually(() => mgr.healthProbeAddress() !== undefined && mgr.metricsAddress() !== undefined, {
        what: 'servers listening',
      });
      const probe = mgr.healthProbeAddress()!.port;
      const metrics = mgr.metricsAddress()!.port;

      expect(await httpGet(probe, '/healthz')).toEqual({ code: 200, body: 'ok' });
      expect((await httpGet(probe, '/readyz')).code).toBe(500);
      ready = true;
      expect(await httpGet(probe, '/readyz')).toEqual({ code: 200, body: 'ok' });
      expect((await httpGet(probe, '/readyz/readyz')).code).toBe(200);

      await mgr.elected();
      await api.create(AppServices, { metadata: { namespace: ns, name: 'm1' }, spec: { replicas: 1, image: 'x' } });

      expect((await httpsGet(metrics, '/metrics')).code).toBe(401);
      expect((await httpsGet(metrics, '/metrics', 'not-a-token')).code).toBe(401);
      expect((await httpsGet(metrics, '/metrics', nobody)).code).toBe(403);
      let body = '';
      const success = /controller_runtime_reconcile_total\{controller="metricsapp",result="success"\} ([1-9]\d*)/;
      for (let i = 0; i < 200 && !success.test(body); i++) {
        const r = await httpsGet(metrics, '/metrics', scraper);
        expect(r.code).toBe(200);
        body = r.body;
        if (!success.test(body)) await new Promise((res) => setTimeout(res, 50));
      }
      expect(body).toMatch(success);
      expect(body).toMatch(/controller_runtime_reconcile_time_seconds_count\{controller="metricsapp"\} [1-9]/);
      expect(body).toContain('controller_runtime_max_concurrent_reconciles{controller="metricsapp"} 1');
      expect(body).toMatch(/controller_runtime_active_workers\{controller="metricsapp"\} \d/);
      expect(body).toMatch(/workqueue_adds_total\{name="metricsapp",controller="metricsapp"\} [1-9]/);
      expect(body).toMatch(/workqueue_queue_duration_seconds_count\{name="metricsapp",controller="metricsapp"\} [1-9]/);
      expect(body).toContain('leader_election_master_status{name="servers-test"} 1');
      expect(body).toContain('process_resident_memory_bytes');
      expect(body).toMatch(/rest_client_requests_total\{code="200",method="GET",host="127.0.0.1:\d+"\} [1-9]/);
      expect(body).toMatch(/rest_client_requests_total\{code="201",method="POST",host="127.0.0.1:\d+"\} [1-9]/);
      expect(body).toMatch(/rest_client_request_duration_seconds_count\{verb="PUT",host="127.0.0.1:\d+"\} [1-9]/);
      expect(body).toMatch(/rest_client_request_size_bytes_count\{verb="POST",host="127.0.0.1:\d+"\} [1-9]/);
      expect(body).toMatch(/rest_client_response_size_bytes_sum\{verb="GET",host="127.0.0.1:\d+"\} [1-9]/);
      expect(body).toContain('# TYPE rest_client_request_retries_total counter');
    } finally {
      ac.abort();
      await done;
    }
    expect(mgr.healthProbeAddress()).toBeUndefined();
  });

  it('serves /metrics over plain HTTP when metrics.secureServing is false', async () => {
    const mgr = new Manager({
      kubeConfig: env.kubeConfig,
      log: managerLog.log,
      metrics: { bindAddress: '127.0.0.1:0', secureServing: false },
    });
    const ac = new AbortController();
    const done = mgr.start(ac.signal);
    try {
      await eventually(() => mgr.metricsAddress() !== undefined, { what: 'metrics listening' });
      const r = await httpGet(mgr.metricsAddress()!.port, '/metrics');
      expect(r.code).toBe(200);
      expect(r.body).toContain('# HELP controller_runtime_reconcile_total');
    } finally {
      ac.abort();
      await done;
    }
  });
});
