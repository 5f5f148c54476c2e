// The chart's manager.healthProbe.port against kubebuilder v4.16.0's helm/v2-alpha, both given the same installer
// (our dist/install.yaml): the same values.yaml section, and charts that put a port set there in the same four places
// of the manager (the flag, the container port named health, the liveness and readiness probes).
// (helm-kubebuilder.test.ts compares the whole chart with the version the other comparisons pin.)
import { execFileSync } from 'node:child_process';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { helmEdit } from '../../src/scaffold/plugins/helm/edit.js';
import { createAPI, newProject, writeCRD, type Project } from '../kustomize/trees.js';
import { tempDir } from '../support/files.js';
import { findHelm, helm, HELM_BUILD_MS } from '../support/helm.js';
import { findKubebuilder, goEnv } from '../support/kubebuilder.js';
import { GO_BUILD_MS } from '../support/limits.js';
import { onPath, peerAvailable, requirePeer } from '../support/peers.js';

const VERSION = 'v4.16.0';
const what = `manager.healthProbe.port against kubebuilder ${VERSION}'s helm/v2-alpha`;
const available = peerAvailable(
  what,
  onPath('go') ? undefined : 'Go is not installed (it builds kubebuilder and helm)',
);

type Probe = { httpGet: { port: number } };
type Container = {
  args: string[];
  ports?: Array<{ name: string; containerPort: number }>;
  livenessProbe: Probe;
  readinessProbe: Probe;
};

/** values.yaml's health probe section, as text. */
const healthSection = (root: string): string | undefined =>
  / {2}## Health probes\.\n(?: {2}##.*\n)* {2}healthProbe:\n(?: {4}.*\n)*/.exec(
    readFileSync(join(root, 'dist/chart/values.yaml'), 'utf8'),
  )?.[0];

describe.skipIf(!available)(what, () => {
  let ours: Project;
  let theirs: { path: string; remove: () => void };
  let helmBinary: string;

  beforeAll(async () => {
    const kubebuilder = await requirePeer(what, () => findKubebuilder(VERSION));
    helmBinary = await requirePeer(what, findHelm);
    ours = newProject('proj');
    createAPI(ours, { group: 'batch', version: 'v1', kind: 'CronJob' });
    writeCRD(ours, { group: 'batch.example.com', kind: 'CronJob', plural: 'cronjobs', versions: ['v1'] });
    helmEdit(ours.root, {});
    theirs = tempDir('ks-kubebuilder-helm-health-');
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
  }, GO_BUILD_MS + HELM_BUILD_MS);

  afterAll(() => {
    ours?.cleanup();
    theirs?.remove();
  });

  it("writes kubebuilder's healthProbe section in values.yaml", () => {
    expect(healthSection(ours.root)).toBeDefined();
    expect(healthSection(ours.root)).toBe(healthSection(theirs.path));
  });

  it.each(['default values', 'manager.healthProbe.port=9440'])(
    "puts the port where kubebuilder's chart does, with %s",
    async (values) => {
      const health = async (root: string) => {
        const args = ['template', 'proj', 'dist/chart', '--namespace', 'proj-system'];
        if (values !== 'default values') args.push('--set', values);
        const manager = parseAllDocuments(await helm(helmBinary, args, root))
          .map((d) => d.toJS() as { kind?: string; spec?: { template: { spec: { containers: Container[] } } } })
          .find((o) => o?.kind === 'Deployment')!;
        const c = manager.spec!.template.spec.containers[0]!;
        return {
          arg: c.args.find((a) => a.startsWith('--health-probe-bind-address')),
          port: c.ports?.find((p) => p.name === 'health')?.containerPort,
          liveness: c.livenessProbe.httpGet.port,
          readiness: c.readinessProbe.httpGet.port,
        };
      };
      const mine = await health(ours.root);
      expect(mine).toEqual(await health(theirs.path));
      const port = values === 'default values' ? 8081 : 9440;
      expect(mine).toEqual({
        arg: `--health-probe-bind-address=:${port}`,
        port,
        liveness: port,
        readiness: port,
      });
    },
  );
});
