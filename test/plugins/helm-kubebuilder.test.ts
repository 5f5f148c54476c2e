// Our helm/v2-alpha against kubebuilder v4.15.0's, both given the same installer (our dist/install.yaml; kubebuilder
// reads it through --manifests): the same chart files, the same values.yaml, and charts that render the same objects.
import { execFileSync } from 'node:child_process';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { helmEdit } from '../../src/scaffold/plugins/helm/edit.js';
import {
  createAPI,
  createWebhook,
  edit,
  enablePrometheusAndNetworkPolicy,
  newProject,
  writeCRD,
  type Project,
} from '../kustomize/trees.js';
import { listFiles, tempDir } from '../support/files.js';
import { findHelm, helm, HELM_BUILD_MS, withoutHealthProbe } from '../support/helm.js';
import { findKubebuilder, goEnv, KUBEBUILDER_VERSION } from '../support/kubebuilder.js';
import { GO_BUILD_MS } from '../support/limits.js';
import { onPath, peerAvailable, requirePeer } from '../support/peers.js';

type Obj = {
  kind: string;
  metadata: { name: string; namespace?: string };
  spec?: { template?: { spec?: { containers?: Array<{ args?: string[] }> } } };
};

const what = `comparison with kubebuilder ${KUBEBUILDER_VERSION}'s helm/v2-alpha`;
const available = peerAvailable(
  what,
  (process.env.KUBEBUILDER && process.env.HELM) || onPath('go')
    ? undefined
    : 'Go is not installed (it builds kubebuilder and helm) and KUBEBUILDER/HELM are not set',
);

function rendered(text: string): Map<string, Obj> {
  const docs = parseAllDocuments(text)
    .map((d) => d.toJS() as Obj | null)
    .filter((o): o is Obj => o !== null);
  return new Map(docs.map((o) => [`${o.kind} ${o.metadata.namespace ?? ''}/${o.metadata.name}`, o]));
}

/** The manager's flags, which kubebuilder reorders (health probe second) and we keep in the installer's order. */
function managerArgs(objects: Map<string, Obj>): string[] {
  return (
    objects.get('Deployment proj-system/proj-controller-manager')?.spec?.template?.spec?.containers?.[0]?.args ?? []
  );
}

/** config/default's [METRICS-WITH-CERTS] sections uncommented: the metrics certificate patch and its replacements. */
function enableMetricsCertificates(p: Project): void {
  edit(p, 'config/default/kustomization.yaml', (text) => {
    const lines = text.split('\n');
    const patch = lines.indexOf('#- path: cert_metrics_manager_patch.yaml');
    const from = lines.findIndex((l) =>
      l.startsWith('# - source: # Uncomment the following block to enable certificates for metrics'),
    );
    const to = lines.findIndex((l) =>
      l.startsWith(' - source: # Uncomment the following block if you have any webhook'),
    );
    if (patch < 0 || from < 0 || to < from)
      throw new Error('config/default/kustomization.yaml has no [METRICS-WITH-CERTS] sections');
    return lines
      .map((l, i) => ((i >= patch && i <= patch + 2) || (i >= from && i < to) ? l.replace(/^#/, '') : l))
      .join('\n');
  });
}

const cases = [
  { name: 'config/default as scaffolded', extra: (_p: Project) => undefined, ownText: [] as string[] },
  // The installer then has a ServiceMonitor and NetworkPolicies, which the chart templates instead of its fallbacks.
  { name: 'prometheus and network policies enabled', extra: enablePrometheusAndNetworkPolicy, ownText: [] },
  {
    name: 'metrics certificates and prometheus enabled',
    extra: (p: Project) => {
      enableMetricsCertificates(p);
      enablePrometheusAndNetworkPolicy(p);
    },
    // kubebuilder leaves the ServiceMonitor's serverName in the installer's namespace; ours follows the release's.
    ownText: ['templates/prometheus/controller-manager-metrics-monitor.yaml'],
  },
];

describe.skipIf(!available).each(cases)(`${what}: $name`, ({ extra, ownText }) => {
  let ours: Project;
  let theirs: { path: string; remove: () => void };
  let helmBinary: string;

  beforeAll(async () => {
    const kubebuilder = await requirePeer(what, findKubebuilder);
    helmBinary = await requirePeer(what, findHelm);
    ours = newProject('proj');
    createAPI(ours, { group: 'batch', version: 'v1', kind: 'CronJob' });
    writeCRD(ours, { group: 'batch.example.com', kind: 'CronJob', plural: 'cronjobs', versions: ['v1'] });
    createWebhook(ours, {
      group: 'batch',
      version: 'v1',
      kind: 'CronJob',
      qualifiedGroup: 'batch.example.com',
      plural: 'cronjobs',
      defaulting: true,
      validation: true,
    });
    extra(ours);
    helmEdit(ours.root, {});

    // A Go project's PROJECT is all kubebuilder's edit needs when it does not build the installer itself.
    theirs = tempDir('ks-kubebuilder-helm-');
    writeFileSync(
      join(theirs.path, 'PROJECT'),
      'domain: example.com\nlayout:\n- go.kubebuilder.io/v4\nprojectName: proj\nrepo: example.com/proj\nversion: "3"\n',
    );
    copyFileSync(join(ours.root, 'dist/install.yaml'), join(theirs.path, 'install.yaml'));
    execFileSync(kubebuilder, ['edit', '--plugins=helm/v2-alpha', '--manifests=install.yaml'], {
      cwd: theirs.path,
      env: goEnv(),
      stdio: 'pipe',
    });
  }, GO_BUILD_MS + HELM_BUILD_MS); // the first run on a machine may build both from the Go module proxy

  afterAll(() => {
    ours?.cleanup();
    theirs?.remove();
  });

  it('writes the same chart files', () => {
    expect(listFiles(join(ours.root, 'dist/chart'))).toEqual(listFiles(join(theirs.path, 'dist/chart')));
  });

  it("writes the same text in every chart file but Chart.yaml, the manager's and the CRDs'", () => {
    // Chart.yaml names its generator; the manager is a Node program (its flags and env); kubebuilder folds a CRD's long
    // descriptions at 80 columns, where we keep each on one line (the same strings).
    const differing = (path: string): boolean =>
      path === 'Chart.yaml' ||
      path === 'templates/manager/manager.yaml' ||
      path.startsWith('templates/crd/') ||
      ownText.includes(path);
    const files = listFiles(join(theirs.path, 'dist/chart')).filter((path) => !differing(path));
    expect(files).toContain('values.yaml');
    for (const path of files)
      expect(withoutHealthProbe(readFileSync(join(ours.root, 'dist/chart', path), 'utf8')), path).toBe(
        readFileSync(join(theirs.path, 'dist/chart', path), 'utf8'),
      );
  });

  it.each([
    'default values',
    'webhook.enabled=false,certManager.enabled=false',
    'metrics.enabled=false,rbac.namespaced=true,rbac.helpers.enabled=true',
    'metrics.secure=false,prometheus.enabled=true,networkPolicy.enabled=true,crd.keep=false',
    'manager.replicas=3,manager.image.repository=registry.example/op,manager.image.tag=v2,serviceAccount.enabled=false,serviceAccount.name=custom',
  ])("renders the same objects as kubebuilder's chart with %s", async (values) => {
    const args = [
      'template',
      'proj',
      'dist/chart',
      '--namespace',
      'proj-system',
      ...(values === 'default values' ? [] : ['--set', values]),
    ];
    const mine = rendered(await helm(helmBinary, args, ours.root));
    const kubebuilders = rendered(await helm(helmBinary, args, theirs.path));
    expect([...mine.keys()].sort()).toEqual([...kubebuilders.keys()].sort());
    // The same flags; ours in the installer's order, kubebuilder's with the health probe moved up.
    // Our chart turns metrics-secure off as --no-metrics-secure, which the mains of earlier scaffolds (node:util's
    // parseArgs) read as well as today's (parseFlags with allowNegative).
    const theirArgs = managerArgs(kubebuilders).map((a) =>
      a === '--metrics-secure=false' ? '--no-metrics-secure' : a,
    );
    expect([...managerArgs(mine)].sort()).toEqual(theirArgs.sort());
    for (const objects of [mine, kubebuilders]) {
      const container = objects.get('Deployment proj-system/proj-controller-manager')?.spec?.template?.spec
        ?.containers?.[0];
      if (container) delete container.args;
    }
    for (const [key, object] of mine) expect(object, key).toEqual(kubebuilders.get(key));
  });
});
