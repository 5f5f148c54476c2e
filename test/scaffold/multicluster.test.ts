/**
 * `edit --plugins=multicluster/v1-alpha`: cmd/main.ts made multi-cluster (a MultiClusterManager with a kubeconfig
 * Secret provider, each controller wired per cluster), the RBAC to read the Secrets, PROJECT, `create api` afterwards,
 * and the refusals, each leaving the project as it was. The rewritten main.ts compiles against the runtime.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadProject } from '../../src/project/load.js';
import { scaffoldCreateAPI } from '../../src/scaffold/api.js';
import { editMultiCluster } from '../../src/scaffold/plugins/multicluster/index.js';
import { builtinSteps, resolveChain } from '../../src/scaffold/plugins/chain.js';
import { pluginSpecs } from '../../src/scaffold/plugins/registry.js';
import { typeErrors } from '../support/typecheck.js';
import { initProject, snapshotTree, tempProjectDir } from './helpers.js';

const KEY = 'multicluster.kubescaffold.io/v1-alpha';
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** A project with a kind of its own (Ship) and a controller for a built-in one (Deployment). */
function project(): string {
  const { root, cleanup } = tempProjectDir();
  cleanups.push(cleanup);
  initProject(root);
  scaffoldCreateAPI(root, {
    group: 'fleet',
    version: 'v1',
    kind: 'Ship',
    resource: true,
    controller: true,
    namespaced: true,
    force: false,
  });
  scaffoldCreateAPI(root, {
    group: 'apps',
    version: 'v1',
    kind: 'Deployment',
    resource: false,
    controller: true,
    namespaced: true,
    force: false,
  });
  return root;
}

const read = (root: string, path: string): string => readFileSync(join(root, path), 'utf8');

describe('edit --plugins=multicluster/v1-alpha', () => {
  it('is a plugin of init and edit, by its short key', () => {
    expect(pluginSpecs.map((s) => s.key)).toContain(KEY);
    expect(builtinSteps(resolveChain('multicluster/v1-alpha', 'edit')).map((s) => s.key)).toEqual([KEY]);
  });

  it('rewrites cmd/main.ts with a multi-cluster manager reading kubeconfig Secrets, each controller made per cluster', () => {
    const root = project();
    const { written, notes } = editMultiCluster(root);
    expect(written).toEqual(
      expect.arrayContaining([
        'cmd/main.ts',
        'config/rbac/kubeconfig_secret_reader_role.yaml',
        'config/rbac/kubeconfig_secret_reader_role_binding.yaml',
        'config/rbac/kustomization.yaml',
        'PROJECT',
      ]),
    );
    const main = read(root, 'cmd/main.ts');
    expect(main).toContain(
      "import { KubeconfigSecretProvider, MultiClusterManager, newMultiClusterControllerManagedBy, perCluster } from '@kubescaffold/runtime/multicluster';",
    );
    expect(main).toContain("'kubeconfig-secret-namespace': { type: 'string', default: ''");
    // The health settings are flags, durations as Go's flag.Duration reads them (10s, 1m30s).
    expect(main).toContain("'cluster-health-interval': { type: 'duration', default: 10_000");
    expect(main).toContain("'cluster-health-timeout': { type: 'duration', default: 5_000");
    expect(main).toContain("'cluster-unreachable-grace-period': { type: 'duration', default: 60_000");
    expect(main).toContain(
      "kubeconfigSecretNamespace = leaderElectionNamespace(flags['kubeconfig-secret-namespace'] || undefined);",
    );
    expect(main).toContain(
      [
        'const mcmgr = new MultiClusterManager(mgr, {',
        '  provider: new KubeconfigSecretProvider({ namespace: kubeconfigSecretNamespace }),',
        '  health: {',
        "    interval: flags['cluster-health-interval'],",
        "    timeout: flags['cluster-health-timeout'],",
        "    unreachableGracePeriod: flags['cluster-unreachable-grace-period'],",
        '  },',
        '});',
      ].join('\n'),
    );
    expect(main).toContain(
      [
        'newMultiClusterControllerManagedBy(mcmgr)',
        '  .for(ShipResource)',
        "  .named('ship')",
        '  .complete(perCluster((cluster) => new ShipReconciler(cluster.getClient())));',
      ].join('\n'),
    );
    expect(main).toContain("import { ShipResource } from '../api/v1/zz_generated.resources.js';");
    // A built-in kind's descriptor comes from its controller's module.
    expect(main).toContain(
      "import { DeploymentReconciler, DeploymentResource } from '../internal/controller/deployment_controller.js';",
    );
    expect(main).not.toContain('setupWithManager(mgr)');
    // The manager is made before the multi-cluster one, which it then runs.
    expect(main.indexOf('const mgr = new Manager(')).toBeLessThan(
      main.indexOf('const mcmgr = new MultiClusterManager('),
    );
    expect(main).toContain('await mgr.start(setupSignalHandler());');
    expect(notes.join('\n')).toContain('instead of calling its setupWithManager');
  });

  it('lets the manager read the Secrets of its own namespace, and records the plugin in PROJECT', () => {
    const root = project();
    editMultiCluster(root);
    const role = parse(read(root, 'config/rbac/kubeconfig_secret_reader_role.yaml')) as {
      kind: string;
      rules: unknown[];
    };
    expect(role.kind).toBe('Role');
    expect(role.rules).toEqual([{ apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list', 'watch'] }]);
    const binding = parse(read(root, 'config/rbac/kubeconfig_secret_reader_role_binding.yaml')) as {
      roleRef: { name: string };
      subjects: Array<{ name: string }>;
    };
    expect(binding.roleRef.name).toBe('kubeconfig-secret-reader-role');
    expect(binding.subjects[0]?.name).toBe('controller-manager');
    const resources = (parse(read(root, 'config/rbac/kustomization.yaml')) as { resources: string[] }).resources;
    expect(resources).toEqual(
      expect.arrayContaining(['kubeconfig_secret_reader_role.yaml', 'kubeconfig_secret_reader_role_binding.yaml']),
    );
    expect(loadProject(root).plugins).toEqual({ [KEY]: {} });
  });

  it('wires a controller made afterwards by create api the same way (main.ts compiles), and changes nothing when run again', () => {
    const root = project();
    editMultiCluster(root);
    scaffoldCreateAPI(root, {
      group: 'fleet',
      version: 'v1',
      kind: 'Dock',
      resource: true,
      controller: true,
      namespaced: true,
      force: false,
    });
    const main = read(root, 'cmd/main.ts');
    expect(main).toContain('  .complete(perCluster((cluster) => new DockReconciler(cluster.getClient())));');
    expect(main).toContain("import { DockResource } from '../api/v1/zz_generated.resources.js';");
    expect(main).not.toContain('setupWithManager(mgr)');
    expect(typeErrors([join(root, 'cmd/main.ts')])).toEqual([]);
    const before = snapshotTree(root);
    const again = editMultiCluster(root);
    expect(again.notes.join('\n')).toContain('already makes a MultiClusterManager');
    expect(snapshotTree(root)).toEqual(before);
  });

  it('refuses a main.ts it cannot rewrite, naming what is missing, and writes nothing', () => {
    const root = project();
    const main = read(root, 'cmd/main.ts');
    writeFileSync(join(root, 'cmd/main.ts'), main.replace('// +kubebuilder:scaffold:imports', ''));
    const before = snapshotTree(root);
    expect(() => editMultiCluster(root)).toThrow(
      'cmd/main.ts has no "+kubebuilder:scaffold:imports" marker, which multicluster/v1-alpha needs: add the marker comment back below the imports',
    );
    expect(snapshotTree(root)).toEqual(before);
    writeFileSync(join(root, 'cmd/main.ts'), `${main}\nnew StrayReconciler(mgr.getClient()).setupWithManager(mgr);\n`);
    expect(() => editMultiCluster(root)).toThrow(
      '`new StrayReconciler(mgr.getClient()).setupWithManager(mgr);` wires a reconciler PROJECT records no controller for',
    );
  });
});
