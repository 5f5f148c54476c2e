import { execFile } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ForbiddenReporter, parseForbidden, rbacMarker } from '../../src/cluster/deployed/forbidden.js';
import { entrypointNodeFlags, supportedNodeFlags } from '../../src/cluster/deployed/entrypoint.js';
import { ServiceAccountMount } from '../../src/cluster/deployed/identity.js';
import { planPod, probePort } from '../../src/cluster/deployed/pod.js';
import { Prober, type ProbeState } from '../../src/cluster/deployed/prober.js';
import { localSettings } from '../../src/cluster/deployed/settings.js';
import type { ManifestObject } from '../../src/cluster/objects.js';
import type { KubeConfig, RestClient } from '../../src/runtime/rest/index.js';
import { initProject, tempProjectDir } from '../scaffold/helpers.js';

const scaffoldBin = fileURLToPath(new URL('../../bin/scaffold.js', import.meta.url));

function scaffold(
  cwd: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [scaffoldBin, ...args], { cwd, env }, (err, _stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stderr }),
    );
  });
}

describe('Forbidden answers in the manager log', () => {
  it('reads verb, resource, group and namespace from the API server message, also inside a JSON log line', () => {
    const json = JSON.stringify({
      msg: 'Reconciler error',
      error:
        'configmaps is forbidden: User "system:serviceaccount:ns:sa" cannot create resource "configmaps" in API group "" in the namespace "default"',
    });
    expect(parseForbidden(json)).toEqual([
      { user: 'system:serviceaccount:ns:sa', verb: 'create', resource: 'configmaps', group: '', namespace: 'default' },
    ]);
    const clusterScope =
      'leases.coordination.k8s.io is forbidden: User "u" cannot list resource "leases" in API group "coordination.k8s.io" at the cluster scope';
    expect(parseForbidden(clusterScope)).toEqual([
      { user: 'u', verb: 'list', resource: 'leases', group: 'coordination.k8s.io' },
    ]);
  });

  it('names the marker that grants it, subresources and the core group as kubebuilder writes them', () => {
    const [status] = parseForbidden(
      'User "u" cannot update resource "captains/status" in API group "crew.example.com" in the namespace "x"',
    );
    expect(rbacMarker(status!)).toBe(
      '// +kubebuilder:rbac:groups=crew.example.com,resources=captains/status,verbs=update',
    );
    const [core] = parseForbidden('User "u" cannot watch resource "secrets" in API group "" at the cluster scope');
    expect(rbacMarker(core!)).toBe('// +kubebuilder:rbac:groups=core,resources=secrets,verbs=watch');
  });

  it('reports each missing permission once, however often it is retried', () => {
    const lines: string[] = [];
    const reporter = new ForbiddenReporter((l) => lines.push(l));
    const denial = 'User "u" cannot get resource "pods" in API group "" in the namespace "a"\n';
    reporter.scan(denial.repeat(5));
    reporter.scan(denial.replace('"a"', '"b"'));
    expect(reporter.count).toBe(2);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain('may not get pods (API group "") in namespace a');
  });
});

const deployment = (overrides: Record<string, unknown> = {}): ManifestObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'p-controller-manager', namespace: 'p-system' },
  spec: {
    template: {
      metadata: { labels: { 'control-plane': 'controller-manager' } },
      spec: {
        serviceAccountName: 'p-controller-manager',
        terminationGracePeriodSeconds: 10,
        containers: [
          {
            name: 'manager',
            args: [
              '--metrics-bind-address=:8443',
              '--leader-elect',
              '--health-probe-bind-address=:8081',
              '--metrics-cert-path=/tmp/k8s-metrics-server/metrics-certs',
            ],
            env: [
              { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
              { name: 'NODE_OPTIONS', value: '--max-old-space-size-percentage=50' },
            ],
            ports: [
              { name: 'health', containerPort: 8081 },
              { name: 'webhook-server', containerPort: 9443 },
            ],
            resources: { limits: { memory: '192Mi', cpu: '500m' } },
            livenessProbe: { httpGet: { path: '/healthz', port: 'health' }, periodSeconds: 20 },
            readinessProbe: { httpGet: { path: '/readyz', port: 8081 } },
          },
        ],
      },
    },
  },
  ...overrides,
});

describe('the pod --as-deployed imitates', () => {
  it("takes the manager's Deployment, its prerequisites and its probes with the kubelet's defaults", () => {
    const rendered: ManifestObject[] = [
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'p-system' } },
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 'svc', namespace: 'p-system' } },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: 'p-metrics-reader' },
        rules: [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }],
      },
      deployment(),
    ];
    const plan = planPod(rendered, 'config/default');
    expect(plan).toMatchObject({
      deployment: 'p-controller-manager',
      namespace: 'p-system',
      serviceAccountName: 'p-controller-manager',
      terminationGracePeriodSeconds: 10,
      memoryLimitBytes: 192 * 2 ** 20,
      cpuLimit: '500m',
      metricsReaderRole: 'p-metrics-reader',
    });
    expect(plan.prerequisites.map((o) => o.kind)).toEqual(['Namespace', 'ClusterRole']);
    expect(plan.liveness).toEqual({
      path: '/healthz',
      port: 'health',
      initialDelaySeconds: 0,
      periodSeconds: 20,
      timeoutSeconds: 1,
      failureThreshold: 3,
      successThreshold: 1,
    });
    expect(probePort(plan, plan.liveness!.port)).toBe(8081);
  });

  it('says what is wrong when config/default renders no Deployment', () => {
    expect(() => planPod([{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x' } }], 'config/default')).toThrow(
      /config\/default renders no Deployment.*\.\.\/manager/,
    );
  });

  it("moves listening ports to free local ones, drops unmounted certificate paths, and gives the env a pod would have, without the user's kubeconfig", async () => {
    const plan = planPod([deployment()], 'config/default');
    const s = await localSettings({
      plan,
      server: new URL('https://127.0.0.1:6443'),
      serviceAccountDir: '/tmp/sa',
      podName: 'p-local',
      nodeSupportsHeapPercentage: false,
      baseEnv: { PATH: '/bin', HOME: '/home/u', KUBECONFIG: '/home/u/.kube/admin' },
    });
    const metrics = s.ports.get(8443)!;
    const probes = s.ports.get(8081)!;
    const webhook = s.ports.get(9443)!;
    expect(new Set([metrics, probes, webhook]).size).toBe(3);
    expect(s.args).toEqual([
      `--metrics-bind-address=127.0.0.1:${metrics}`,
      '--leader-elect',
      `--health-probe-bind-address=127.0.0.1:${probes}`,
      `--webhook-port=${webhook}`,
    ]);
    expect(s.metrics).toEqual({ url: `https://127.0.0.1:${metrics}/metrics`, secure: true });
    expect(s.notes.join('\n')).toContain('dropped --metrics-cert-path');
    expect(s.env).toEqual({
      PATH: '/bin',
      HOME: '/home/u',
      POD: 'p-local',
      NODE_OPTIONS: '--max-old-space-size=96',
      KUBERNETES_SERVICE_HOST: '127.0.0.1',
      KUBERNETES_SERVICE_PORT: '6443',
      KUBESCAFFOLD_SERVICE_ACCOUNT_DIR: '/tmp/sa',
    });
  });
});

describe('probes, polled as the kubelet polls them', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    server = undefined;
  });

  async function serve(status: () => number): Promise<string> {
    server = createServer((_req, res) => {
      res.statusCode = status();
      res.end();
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as { port: number }).port}/readyz`;
  }

  it('passes after successThreshold successes, fails after failureThreshold failures in a row, and passes again', async () => {
    let status = 200;
    const url = await serve(() => status);
    const changes: Array<[ProbeState, string]> = [];
    // One "second" is 5 ms here, so the test waits on state changes, not on real probe periods.
    const prober = new Prober({
      probe: {
        path: '/readyz',
        port: 0,
        initialDelaySeconds: 0,
        periodSeconds: 1,
        timeoutSeconds: 200,
        failureThreshold: 3,
        successThreshold: 1,
      },
      url,
      onChange: (state, detail) => changes.push([state, detail]),
      secondMs: 5,
    });
    prober.start();
    try {
      await vi.waitFor(() => expect(changes).toEqual([['passing', 'HTTP 200']]), { timeout: 10_000, interval: 5 });
      status = 500;
      await vi.waitFor(() => expect(changes[1]).toEqual(['failing', 'HTTP 500, 3 checks in a row']), {
        timeout: 10_000,
        interval: 5,
      });
      status = 204;
      await vi.waitFor(() => expect(changes[2]).toEqual(['passing', 'HTTP 204']), { timeout: 10_000, interval: 5 });
    } finally {
      prober.stop();
    }
    expect(changes).toHaveLength(3);
  });
});

describe('scaffold run --as-deployed refuses what it cannot run', () => {
  it('an unreachable cluster or a missing kubeconfig gets one clear message and a non-zero exit', async () => {
    const { root, cleanup } = tempProjectDir('p');
    try {
      initProject(root);
      const kubeconfig = join(root, 'unreachable.kubeconfig');
      // Port 1 on loopback: nothing listens there.
      writeFileSync(
        kubeconfig,
        'apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: "https://127.0.0.1:1"}\ncontexts:\n- name: c\n  context: {cluster: c, user: u}\ncurrent-context: c\nusers:\n- name: u\n  user: {token: t}\n',
      );
      const unreachable = await scaffold(root, ['run', '--as-deployed', '--no-build'], {
        ...process.env,
        KUBECONFIG: kubeconfig,
      });
      expect(unreachable.code).not.toBe(0);
      expect(unreachable.stderr).toMatch(/127\.0\.0\.1:1/);
      expect(unreachable.stderr.trim().split('\n')).toHaveLength(1);
      const missing = await scaffold(
        root,
        ['run', '--as-deployed', '--no-build', '--kubeconfig', join(root, 'nope')],
        process.env,
      );
      expect(missing.code).not.toBe(0);
      expect(missing.stderr).toContain(`kubeconfig ${join(root, 'nope')} does not exist`);
    } finally {
      cleanup();
    }
  });
});

describe("the manager's service account directory", () => {
  it('holds token, ca.crt and namespace, renews the token at 80% of its life, and is removed on stop', async () => {
    const requests: unknown[] = [];
    // The TokenRequest answer decides the schedule: here a token that lives 500 ms.
    const client = {
      transport: {
        requestJson: async (req: { path: string; body: unknown }) => {
          requests.push(req);
          return {
            status: {
              token: `token-${requests.length}`,
              expirationTimestamp: new Date(Date.now() + 500).toISOString(),
            },
          };
        },
      },
    } as unknown as RestClient;
    const kubeConfig = {
      server: 'https://127.0.0.1:6443',
      tls: { caData: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n' },
    } as KubeConfig;
    const mount = await ServiceAccountMount.create({
      client,
      kubeConfig,
      namespace: 'p-system',
      serviceAccount: 'p-controller-manager',
    });
    try {
      expect(readFileSync(join(mount.dir, 'token'), 'utf8')).toBe('token-1');
      expect(readFileSync(join(mount.dir, 'namespace'), 'utf8')).toBe('p-system');
      expect(readFileSync(join(mount.dir, 'ca.crt'), 'utf8')).toContain('BEGIN CERTIFICATE');
      expect(requests[0]).toMatchObject({
        path: '/api/v1/namespaces/p-system/serviceaccounts/p-controller-manager/token',
        body: { kind: 'TokenRequest', spec: { expirationSeconds: 600 } },
      });
      await vi.waitFor(() => expect(readFileSync(join(mount.dir, 'token'), 'utf8')).toBe('token-2'), {
        timeout: 5000,
        interval: 20,
      });
    } finally {
      mount.stop();
    }
    expect(existsSync(mount.dir)).toBe(false);
  });
});

describe("the image's node flags", () => {
  it("reads the flags before the script in the Dockerfile's ENTRYPOINT, and keeps those this Node knows", () => {
    const { root, cleanup } = tempProjectDir('p');
    try {
      expect(entrypointNodeFlags(join(root, 'Dockerfile'))).toEqual([]);
      writeFileSync(
        join(root, 'Dockerfile'),
        'FROM x\nENTRYPOINT ["/nodejs/bin/node", "--stack-size=900", "--no-such-flag-anywhere", "/app/dist/cmd/main.js"]\n',
      );
      const flags = entrypointNodeFlags(join(root, 'Dockerfile'));
      expect(flags).toEqual(['--stack-size=900', '--no-such-flag-anywhere']);
      expect(supportedNodeFlags(process.execPath, flags)).toEqual({
        supported: ['--stack-size=900'],
        unsupported: ['--no-such-flag-anywhere'],
      });
    } finally {
      cleanup();
    }
  });
});
