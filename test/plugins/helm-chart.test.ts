// The chart `edit --plugins=helm/v2-alpha` writes, checked with the real helm: it lints, renders with default values to
// the objects of dist/install.yaml (but for what a chart does differently by design, listed below), follows its
// values, and installs (with a server-side dry run, then for real) into a real kube-apiserver and uninstalls.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { TestEnvironment } from '../../src/envtest/index.js';
import {
  CustomResourceDefinitions,
  Deployments,
  isNotFound,
  newClient,
  Namespaces,
  type RestClient,
} from '../../src/runtime/rest/index.js';
import { helmEdit } from '../../src/scaffold/plugins/helm/edit.js';
import { kubeconfigFile } from '../cluster/helpers.js';
import { createAPI, createWebhook, enableSharding, newProject, writeCRD, type Project } from '../kustomize/trees.js';
import { testCRD } from '../support/crd.js';
import { findHelm, helm, HELM_BUILD_MS, HELM_VERSION, withoutHealthProbe } from '../support/helm.js';
import { onPath, peerAvailable, requirePeer } from '../support/peers.js';

type Obj = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [key: string]: unknown;
};

const available = peerAvailable(
  `helm ${HELM_VERSION} checks of the generated chart`,
  process.env.HELM || onPath('go') ? undefined : 'Go is not installed (it builds helm) and HELM is not set',
);

/** The labels and annotations helm's chart adds that kustomize's output has not (or has with kustomize's value). */
const HELM_METADATA = [
  'app.kubernetes.io/managed-by',
  'helm.sh/chart',
  'app.kubernetes.io/instance',
  'helm.sh/resource-policy',
];

function withoutHelmMetadata(o: Obj): Obj {
  // `annotations:` with nothing under it (cert-manager off, as kubebuilder's templates render it) is null.
  const strip = (map: Record<string, string> | null | undefined): Record<string, string> | undefined => {
    if (map === undefined || map === null) return undefined;
    const rest = Object.fromEntries(Object.entries(map).filter(([k]) => !HELM_METADATA.includes(k)));
    return Object.keys(rest).length > 0 ? rest : undefined;
  };
  const metadata = { ...o.metadata, labels: strip(o.metadata.labels), annotations: strip(o.metadata.annotations) };
  const template = (o.spec as { template?: { metadata?: { labels?: Record<string, string> } } } | undefined)?.template;
  if (template?.metadata?.labels) template.metadata.labels = strip(template.metadata.labels);
  return JSON.parse(JSON.stringify({ ...o, metadata })) as Obj;
}

const key = (o: Obj): string => `${o.kind} ${o.metadata.namespace ?? ''}/${o.metadata.name}`;

function objects(text: string): Map<string, Obj> {
  const docs = parseAllDocuments(text)
    .map((d) => d.toJS() as Obj | null)
    .filter((o): o is Obj => o !== null);
  return new Map(docs.map((o) => [key(o), withoutHelmMetadata(o)]));
}

// cert-manager's kinds, as the cluster has them once cert-manager is installed (the test-chart workflow installs it):
// the chart's Certificate and Issuer need them to be known to the API server.
const certManagerCRDs = ['Certificate', 'Issuer'].map((kind) =>
  testCRD({
    group: 'cert-manager.io',
    kind,
    versions: [
      {
        name: 'v1',
        spec: {
          dnsNames: { type: 'array', items: { type: 'string' } },
          secretName: { type: 'string' },
          issuerRef: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
          selfSigned: { type: 'object' },
        },
      },
    ],
  }),
);

describe.skipIf(!available)(`the helm/v2-alpha chart with helm ${HELM_VERSION}`, () => {
  let helmBinary: string;
  let project: Project;
  let env: TestEnvironment | undefined;

  beforeAll(async () => {
    helmBinary = await requirePeer(`helm ${HELM_VERSION} checks of the generated chart`, findHelm);
    project = newProject('proj');
    createAPI(project, { group: 'batch', version: 'v1', kind: 'CronJob' });
    writeCRD(project, { group: 'batch.example.com', kind: 'CronJob', plural: 'cronjobs', versions: ['v1'] });
    createWebhook(project, {
      group: 'batch',
      version: 'v1',
      kind: 'CronJob',
      qualifiedGroup: 'batch.example.com',
      plural: 'cronjobs',
      defaulting: true,
      validation: true,
    });
    helmEdit(project.root, {});
  }, HELM_BUILD_MS); // the first run on a machine builds helm from the Go module proxy (see HELM_BUILD_MS)

  afterAll(async () => {
    await env?.stop();
    project?.cleanup();
  });

  it('passes helm lint', async () => {
    const out = await helm(helmBinary, ['lint', 'dist/chart'], project.root);
    expect(out).toContain('0 chart(s) failed');
  });

  it('renders with default values to the objects of dist/install.yaml, apart from what a chart does differently', async () => {
    const installer = objects(readFileSync(join(project.root, 'dist/install.yaml'), 'utf8'));
    // Released as "proj" into proj-system, the chart's names and namespace are kustomize's.
    const rendered = objects(
      await helm(helmBinary, ['template', 'proj', 'dist/chart', '--namespace', 'proj-system'], project.root),
    );

    // By design (as kubebuilder's chart): helm creates the release namespace (--create-namespace) instead of a Namespace
    // object; the admin/editor/viewer helper roles are opt-in (rbac.helpers.enabled).
    const notInChart = [
      'Namespace /proj-system',
      'ClusterRole /proj-cronjob-admin-role',
      'ClusterRole /proj-cronjob-editor-role',
      'ClusterRole /proj-cronjob-viewer-role',
    ];
    expect([...installer.keys()].filter((k) => !rendered.has(k)).sort()).toEqual(notInChart.sort());
    expect([...rendered.keys()].filter((k) => !installer.has(k))).toEqual([]);

    // The image's tag defaults to the chart's appVersion ("latest" is no release), pulled IfNotPresent.
    installerImage(rendered, 'proj-system', 'proj');
    // config/default leaves the metrics certificate's DNS names as SERVICE_NAME.SERVICE_NAMESPACE placeholders (its
    // replacements are commented out until the certificate is mounted); the chart names the metrics service.
    const metricsCert = rendered.get('Certificate proj-system/proj-metrics-certs')!;
    expect((metricsCert.spec as { dnsNames: string[] }).dnsNames).toEqual([
      'proj-controller-manager-metrics-service.proj-system.svc',
      'proj-controller-manager-metrics-service.proj-system.svc.cluster.local',
    ]);
    (metricsCert.spec as { dnsNames: string[] }).dnsNames = [
      'SERVICE_NAME.SERVICE_NAMESPACE.svc',
      'SERVICE_NAME.SERVICE_NAMESPACE.svc.cluster.local',
    ];

    for (const [k, o] of rendered) expect(o, k).toEqual(installer.get(k));
  });

  it('follows its values: webhooks, cert-manager and metrics off, helpers on, another release name', async () => {
    const rendered = objects(
      await helm(
        helmBinary,
        [
          'template',
          'other',
          'dist/chart',
          '--namespace',
          'ops',
          '--set',
          'webhook.enabled=false,certManager.enabled=false,metrics.enabled=false,rbac.helpers.enabled=true',
        ],
        project.root,
      ),
    );
    const kinds = [...rendered.values()].map((o) => o.kind);
    expect(kinds).not.toContain('ValidatingWebhookConfiguration');
    expect(kinds).not.toContain('Certificate');
    expect(rendered.has('ClusterRole /other-proj-cronjob-admin-role')).toBe(true);
    expect(rendered.has('Service ops/other-proj-controller-manager-metrics-service')).toBe(false);
    const manager = rendered.get('Deployment ops/other-proj-controller-manager')!;
    const container = (manager.spec as { template: { spec: { containers: Array<{ args: string[] }> } } }).template.spec
      .containers[0]!;
    expect(container.args).toEqual(['--metrics-bind-address=0', '--leader-elect', '--health-probe-bind-address=:8081']);
  });

  // The image defaults to the chart's appVersion, pulled IfNotPresent: put back as the installer has it.
  function installerImage(rendered: Map<string, Obj>, namespace: string, name: string): void {
    const manager = rendered.get(`Deployment ${namespace}/${name}-controller-manager`)!;
    const container = (manager.spec as { template: { spec: { containers: Array<Record<string, unknown>> } } }).template
      .spec.containers[0]!;
    expect(container).toMatchObject({ image: 'controller:0.1.0', imagePullPolicy: 'IfNotPresent' });
    container.image = 'controller:latest';
    delete container.imagePullPolicy;
  }

  it.each([
    { name: 'bare', what: 'init only', setup: (_p: Project) => undefined, notInChart: ['Namespace /bare-system'] },
    {
      name: 'nsp',
      what: 'namespaced, with an API',
      init: { namespaced: true },
      setup: (p: Project) => {
        createAPI(p, { group: 'batch', version: 'v1', kind: 'CronJob' });
        writeCRD(p, { group: 'batch.example.com', kind: 'CronJob', plural: 'cronjobs', versions: ['v1'] });
      },
      notInChart: [
        'Namespace /nsp-system',
        'Role nsp-system/nsp-cronjob-admin-role',
        'Role nsp-system/nsp-cronjob-editor-role',
        'Role nsp-system/nsp-cronjob-viewer-role',
      ],
    },
    {
      name: 'ring',
      what: 'the [SHARDING] sections enabled (3 replicas, --shard-ring, a PodDisruptionBudget)',
      setup: enableSharding,
      notInChart: ['Namespace /ring-system'],
      // The chart puts the manager's own flags (values.yaml's manager.args) together, so --shard-ring, appended last
      // by config/default's patch, comes before the health probe's flag.
      flagsRegrouped: true,
    },
  ])(
    "lints and renders the installer's objects for a project without webhooks: $what",
    async ({ name, init, setup, notInChart, flagsRegrouped }) => {
      const other = newProject(name, init);
      try {
        setup(other);
        helmEdit(other.root, {});
        expect(await helm(helmBinary, ['lint', 'dist/chart'], other.root)).toContain('0 chart(s) failed');
        const rendered = objects(
          await helm(helmBinary, ['template', name, 'dist/chart', '--namespace', `${name}-system`], other.root),
        );
        const installer = objects(readFileSync(join(other.root, 'dist/install.yaml'), 'utf8'));
        expect([...installer.keys()].filter((k) => !rendered.has(k)).sort()).toEqual(notInChart.sort());
        expect([...rendered.keys()].filter((k) => !installer.has(k))).toEqual([]);
        installerImage(rendered, `${name}-system`, name);
        if (flagsRegrouped) {
          const args = (objs: Map<string, Obj>): string[] =>
            (
              objs.get(`Deployment ${name}-system/${name}-controller-manager`)!.spec as {
                template: { spec: { containers: Array<{ args: string[] }> } };
              }
            ).template.spec.containers[0]!.args;
          expect([...args(rendered)].sort()).toEqual([...args(installer)].sort());
          args(rendered).splice(0, Infinity, ...args(installer));
        }
        for (const [k, o] of rendered) expect(o, k).toEqual(installer.get(k));
      } finally {
        other.cleanup();
      }
    },
  );

  it("carries the [SHARDING] sections: the budget's selector follows the chart's name as the Deployment's does", async () => {
    const ring = newProject('ring');
    try {
      enableSharding(ring);
      const written = helmEdit(ring.root, {}).written;
      expect(written).toContain('dist/chart/templates/sharding/controller-manager.yaml');
      const rendered = objects(
        await helm(
          helmBinary,
          ['template', 'ring', 'dist/chart', '--namespace', 'ops', '--set', 'nameOverride=crew,manager.replicas=5'],
          ring.root,
        ),
      );
      type Labels = Record<string, string>;
      const manager = rendered.get('Deployment ops/ring-crew-controller-manager')!.spec as {
        replicas: number;
        selector: { matchLabels: Labels };
        template: { metadata: { labels: Labels }; spec: { containers: Array<{ args: string[] }> } };
      };
      expect(manager.replicas).toBe(5);
      expect(manager.template.spec.containers[0]!.args).toContain('--shard-ring=ring');
      const pdb = rendered.get('PodDisruptionBudget ops/ring-crew-controller-manager')!.spec as {
        maxUnavailable: number;
        selector: { matchLabels: Labels };
      };
      expect(pdb.maxUnavailable).toBe(1);
      expect(pdb.selector.matchLabels).toEqual(manager.selector.matchLabels);
      expect(pdb.selector.matchLabels['app.kubernetes.io/name']).toBe('crew');
      for (const [k, v] of Object.entries(pdb.selector.matchLabels))
        expect(manager.template.metadata.labels[k]).toBe(v);
    } finally {
      ring.cleanup();
    }
  });

  /** The manager container's health probe settings of a chart rendered with `--set` values. */
  async function healthSettings(root: string, set: string[]): Promise<unknown> {
    const rendered = objects(
      await helm(helmBinary, ['template', 'proj', 'dist/chart', '--namespace', 'proj-system', ...set], root),
    );
    const manager = rendered.get('Deployment proj-system/proj-controller-manager')!;
    type Probe = { httpGet: { port: number } };
    const container = (
      manager.spec as {
        template: {
          spec: {
            containers: Array<{
              args: string[];
              ports: Array<{ name: string; containerPort: number }>;
              livenessProbe: Probe;
              readinessProbe: Probe;
            }>;
          };
        };
      }
    ).template.spec.containers[0]!;
    return {
      arg: container.args.find((a) => a.startsWith('--health-probe-bind-address')),
      port: container.ports.find((p) => p.name === 'health')?.containerPort,
      liveness: container.livenessProbe.httpGet.port,
      readiness: container.readinessProbe.httpGet.port,
    };
  }

  it('moves the health probe port everywhere the manager uses it with manager.healthProbe.port', async () => {
    expect(readFileSync(join(project.root, 'dist/chart/values.yaml'), 'utf8')).toContain(
      '  healthProbe:\n    # Health probe server port\n    port: 8081\n',
    );
    expect(await healthSettings(project.root, ['--set', 'manager.healthProbe.port=9440'])).toEqual({
      arg: '--health-probe-bind-address=:9440',
      port: 9440,
      liveness: 9440,
      readiness: 9440,
    });
  });

  it("keeps the installer's health probe port with a values.yaml kept from a chart that had no healthProbe", async () => {
    const old = newProject('proj');
    try {
      helmEdit(old.root, {});
      const values = join(old.root, 'dist/chart/values.yaml');
      const text = readFileSync(values, 'utf8');
      const without = withoutHealthProbe(text);
      expect(without).not.toContain('healthProbe');
      writeFileSync(values, without);
      helmEdit(old.root, {});
      expect(readFileSync(values, 'utf8')).toBe(without);
      expect(await helm(helmBinary, ['lint', 'dist/chart'], old.root)).toContain('0 chart(s) failed');
      expect(await healthSettings(old.root, [])).toEqual({
        arg: '--health-probe-bind-address=:8081',
        port: 8081,
        liveness: 8081,
        readiness: 8081,
      });
    } finally {
      old.cleanup();
    }
  });

  it('still lints when the project gains webhooks after the chart was made (the kept values.yaml gets their section)', async () => {
    const grown = newProject('grown');
    try {
      createAPI(grown, { group: 'batch', version: 'v1', kind: 'CronJob' });
      writeCRD(grown, { group: 'batch.example.com', kind: 'CronJob', plural: 'cronjobs', versions: ['v1'] });
      helmEdit(grown.root, {});
      createWebhook(grown, {
        group: 'batch',
        version: 'v1',
        kind: 'CronJob',
        qualifiedGroup: 'batch.example.com',
        plural: 'cronjobs',
        defaulting: true,
      });
      helmEdit(grown.root, {});
      expect(await helm(helmBinary, ['lint', 'dist/chart'], grown.root)).toContain('0 chart(s) failed');
      expect(
        objects(await helm(helmBinary, ['template', 'grown', 'dist/chart'], grown.root)).has(
          'MutatingWebhookConfiguration /grown-mutating-webhook-configuration',
        ),
      ).toBe(true);
    } finally {
      grown.cleanup();
    }
  });

  describe("on a real kube-apiserver (envtest, with cert-manager's kinds)", () => {
    let kc: { file: string; cleanup: () => void };
    let client: RestClient;
    let helmEnv: NodeJS.ProcessEnv;

    beforeAll(async () => {
      env = await TestEnvironment.start({ crds: certManagerCRDs });
      kc = kubeconfigFile(env.kubeconfigYaml());
      client = newClient(env.kubeConfig);
      // helm's own cache and config stay in the project's temp dir, not in the user's home.
      helmEnv = {
        ...process.env,
        HELM_CACHE_HOME: join(project.root, '.helm-cache'),
        HELM_CONFIG_HOME: join(project.root, '.helm-config'),
        HELM_DATA_HOME: join(project.root, '.helm-data'),
      };
    });
    afterAll(() => {
      client?.close();
      kc?.cleanup();
    });

    it('installs with a server-side dry run', async () => {
      // A dry run creates nothing, not even the release namespace.
      await client.create(Namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'dry-run' } });
      const out = await helm(
        helmBinary,
        ['install', 'proj', 'dist/chart', '--namespace', 'dry-run', '--dry-run=server', '--kubeconfig', kc.file],
        project.root,
        helmEnv,
      );
      expect(out).toContain('STATUS: pending-install');
      expect(out).toContain('kind: Deployment');
      // The server is what judged it: with prometheus on, the ServiceMonitor's kind is unknown to it (no prometheus-operator).
      await expect(
        helm(
          helmBinary,
          [
            'install',
            'proj',
            'dist/chart',
            '--namespace',
            'dry-run',
            '--dry-run=server',
            '--kubeconfig',
            kc.file,
            '--set',
            'prometheus.enabled=true',
          ],
          project.root,
          helmEnv,
        ),
      ).rejects.toThrow(/ServiceMonitor/);
      await expect(
        client.get(Deployments, { namespace: 'dry-run', name: 'proj-controller-manager' }),
      ).rejects.toSatisfy(isNotFound);
    });

    it('installs for real (every object accepted by the API server) and uninstalls, keeping the CRDs', async () => {
      const install = [
        'install',
        'proj',
        'dist/chart',
        '--namespace',
        'proj-system',
        '--create-namespace',
        '--kubeconfig',
        kc.file,
        '--set',
        'manager.image.repository=registry.example/proj,manager.image.tag=v1',
      ];
      expect(await helm(helmBinary, install, project.root, helmEnv)).toContain('STATUS: deployed');
      const deployment = await client.get(Deployments, { namespace: 'proj-system', name: 'proj-controller-manager' });
      expect(deployment.spec?.template.spec?.containers[0]?.image).toBe('registry.example/proj:v1');
      expect(deployment.metadata?.labels).toMatchObject({
        'app.kubernetes.io/managed-by': 'Helm',
        'app.kubernetes.io/instance': 'proj',
      });

      await helm(
        helmBinary,
        ['uninstall', 'proj', '--namespace', 'proj-system', '--kubeconfig', kc.file],
        project.root,
        helmEnv,
      );
      await expect(
        client.get(Deployments, { namespace: 'proj-system', name: 'proj-controller-manager' }),
      ).rejects.toSatisfy(isNotFound);
      // crd.keep: helm leaves the CRD (and so every CronJob) in place.
      expect((await client.get(CustomResourceDefinitions, { name: 'cronjobs.batch.example.com' })).metadata?.name).toBe(
        'cronjobs.batch.example.com',
      );
    });
  });
});
