import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { existsSync, readFileSync } from 'node:fs';
import { TestEnvironment } from '../../src/envtest/index.js';
import { kustomizeBuild } from '../../src/kustomize/index.js';
import { DiscoveryClient } from '../../src/runtime/discovery/index.js';
import {
  CustomResourceDefinitions,
  defineResource,
  isNotFound,
  Namespaces,
  newClient,
  type KubeObject,
  type RestClient,
} from '../../src/runtime/rest/index.js';
import { RESTMapper } from '../../src/runtime/restmapper/index.js';
import { createAPI, enablePrometheusAndNetworkPolicy, newProject, writeCRD, type Project } from '../kustomize/trees.js';
import { kubeconfigFile, scaffold } from './helpers.js';
import { eventually } from '../support/eventually.js';

let env: TestEnvironment;
let kc: { file: string; cleanup: () => void };
let client: RestClient;
let mapper: RESTMapper;
let project: Project;

const Captains = defineResource({
  group: 'crew.example.com',
  version: 'v1',
  kind: 'Captain',
  plural: 'captains',
  namespaced: true,
});

beforeAll(async () => {
  env = await TestEnvironment.start();
  kc = kubeconfigFile(env.kubeconfigYaml());
  client = newClient(env.kubeConfig);
  mapper = new RESTMapper(new DiscoveryClient(client.transport));
  project = newProject('proj');
  createAPI(project, { group: 'crew', version: 'v1', kind: 'Captain' });
  writeCRD(project, { group: 'crew.example.com', kind: 'Captain', plural: 'captains', versions: ['v1'] });
});

afterAll(async () => {
  client?.close();
  await env?.stop();
  kc?.cleanup();
  project?.cleanup();
});

async function exists(obj: KubeObject): Promise<KubeObject | undefined> {
  mapper.reset();
  const [group, version] = obj.apiVersion!.includes('/') ? obj.apiVersion!.split('/') : ['', obj.apiVersion!];
  const res = await mapper.resourceFor({ group: group!, version: version!, kind: obj.kind! });
  try {
    return await client.get(res, {
      namespace: res.namespaced ? obj.metadata!.namespace : undefined,
      name: obj.metadata!.name!,
    });
  } catch (e) {
    if (isNotFound(e)) return undefined;
    throw e;
  }
}

describe('scaffold install / deploy / undeploy / uninstall on a real control plane', () => {
  it('--dry-run=server checks everything and creates nothing', async () => {
    const installOut = await scaffold(project.root, 'install', '--kubeconfig', kc.file, '--dry-run=server');
    expect(installOut).toContain(
      'customresourcedefinition.apiextensions.k8s.io/captains.crew.example.com created (server dry run)',
    );
    const deployOut = await scaffold(project.root, 'deploy', '--kubeconfig', kc.file, '--dry-run=server');
    expect(deployOut).toContain('namespace/proj-system created (server dry run)');
    expect(deployOut).toContain('clusterrole.rbac.authorization.k8s.io/proj-manager-role created (server dry run)');
    expect(deployOut).toMatch(
      /deployment.apps\/proj-controller-manager not checked: namespace proj-system is created by this apply/,
    );
    for (const obj of kustomizeBuild(join(project.root, 'config/default')) as KubeObject[]) {
      expect(await exists(obj), `${obj.kind}/${obj.metadata?.name}`).toBeUndefined();
    }
  });

  it('install applies the CRDs, waits until they are established and served; a second install changes nothing', async () => {
    const out = await scaffold(project.root, 'install', '--kubeconfig', kc.file);
    expect(out).toBe('customresourcedefinition.apiextensions.k8s.io/captains.crew.example.com created');
    const crd = (await client.get(CustomResourceDefinitions, { name: 'captains.crew.example.com' })) as KubeObject & {
      status?: { conditions?: Array<{ type: string; status: string }> };
    };
    expect(crd.status?.conditions).toContainEqual(expect.objectContaining({ type: 'Established', status: 'True' }));
    expect(crd.metadata?.managedFields?.map((f) => f.manager)).toContain('kubescaffold');
    expect((await client.list(Captains, { namespace: 'default' })).items).toEqual([]);

    const again = await scaffold(project.root, 'install', '--kubeconfig', kc.file);
    expect(again).toBe('customresourcedefinition.apiextensions.k8s.io/captains.crew.example.com unchanged');
    const after = await client.get(CustomResourceDefinitions, { name: 'captains.crew.example.com' });
    expect(after.metadata?.resourceVersion).toBe(crd.metadata?.resourceVersion);
  });

  it('deploy creates every object of config/default, prefixed and in the project namespace', async () => {
    const out = await scaffold(project.root, 'deploy', '--kubeconfig', kc.file);
    const objects = kustomizeBuild(join(project.root, 'config/default')) as KubeObject[];
    expect(out.split('\n')).toHaveLength(objects.length);
    expect(out.split('\n')[0]).toBe('namespace/proj-system created');
    for (const obj of objects) {
      const live = await exists(obj);
      expect(live, `${obj.kind}/${obj.metadata?.name}`).toBeDefined();
      if (obj.kind === 'Namespace') expect(live!.metadata?.name).toBe('proj-system');
      else if (obj.kind !== 'CustomResourceDefinition') expect(live!.metadata?.name).toMatch(/^proj-/);
      if (!['Namespace', 'CustomResourceDefinition', 'ClusterRole', 'ClusterRoleBinding'].includes(obj.kind!)) {
        expect(live!.metadata?.namespace, `${obj.kind}/${obj.metadata?.name}`).toBe('proj-system');
      }
    }
    const again = await scaffold(project.root, 'deploy', '--kubeconfig', kc.file);
    expect(again.split('\n').every((l) => l.endsWith(' unchanged'))).toBe(true);
  });

  it('deploy --img records the image in config/manager as kubebuilder does, and applies it', async () => {
    const out = await scaffold(project.root, 'deploy', '--kubeconfig', kc.file, '--img', 'example.com/proj:v0.1.0');
    expect(out).toContain('config/manager/kustomization.yaml: image controller set to example.com/proj:v0.1.0');
    expect(out).toContain('deployment.apps/proj-controller-manager configured');
    expect(readFileSync(join(project.root, 'config/manager/kustomization.yaml'), 'utf8')).toContain(
      'newName: example.com/proj',
    );
    const dep = await exists({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'proj-controller-manager', namespace: 'proj-system' },
    });
    expect(JSON.stringify(dep)).toContain('"image":"example.com/proj:v0.1.0"');
  });

  it('build-installer writes dist/install.yaml with the image set', async () => {
    const out = await scaffold(project.root, 'build-installer', '--img', 'example.com/proj:v0.2.0');
    expect(out).toContain('wrote dist/install.yaml');
    const text = readFileSync(join(project.root, 'dist/install.yaml'), 'utf8');
    expect(text).toContain('image: example.com/proj:v0.2.0');
    expect(text.startsWith('apiVersion: v1\nkind: Namespace\n')).toBe(true);
  });

  it('refuses, before applying anything, kinds the cluster does not serve', async () => {
    const p = newProject('monitored');
    try {
      createAPI(p, { group: 'crew', version: 'v1', kind: 'Captain' });
      writeCRD(p, { group: 'crew.example.com', kind: 'Captain', plural: 'captains', versions: ['v1'] });
      enablePrometheusAndNetworkPolicy(p);
      await expect(scaffold(p.root, 'deploy', '--kubeconfig', kc.file)).rejects.toThrow(
        /does not serve these kinds, so nothing was applied: ServiceMonitor \(monitoring.coreos.com\/v1\): monitored-controller-manager-metrics-monitor/,
      );
      await expect(client.get(Namespaces, { name: 'monitored-system' })).rejects.toSatisfy(isNotFound);
    } finally {
      p.cleanup();
    }
  });

  it('undeploy removes what deploy created; uninstall then needs --ignore-not-found', async () => {
    const objects = kustomizeBuild(join(project.root, 'config/default')) as KubeObject[];
    // envtest runs no controller manager, so a namespace stays Terminating: do not wait for it.
    const out = await scaffold(project.root, 'undeploy', '--kubeconfig', kc.file, '--wait=false');
    expect(out.split('\n')).toHaveLength(objects.length);
    expect(out.split('\n').at(-1)).toBe('namespace/proj-system deleted');
    for (const obj of objects) {
      const live = await exists(obj);
      if (obj.kind === 'Namespace') expect(live?.metadata?.deletionTimestamp).toBeDefined();
      else if (obj.kind === 'CustomResourceDefinition')
        expect(live === undefined || live.metadata?.deletionTimestamp !== undefined).toBe(true);
      else expect(live, `${obj.kind}/${obj.metadata?.name}`).toBeUndefined();
    }
    // The CRD's own cleanup (its custom objects) runs in the apiserver; wait for it before uninstalling.
    await eventually(
      async () =>
        (await exists({
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'CustomResourceDefinition',
          metadata: { name: 'captains.crew.example.com' },
        })) === undefined,
      'the CRD to be gone',
    );
    await expect(scaffold(project.root, 'uninstall', '--kubeconfig', kc.file)).rejects.toThrow(
      /customresourcedefinition.apiextensions.k8s.io\/captains.crew.example.com not found \(pass --ignore-not-found/,
    );
    expect(await scaffold(project.root, 'uninstall', '--kubeconfig', kc.file, '--ignore-not-found')).toBe('');
  });

  it('install then uninstall removes the CRDs and waits for them to go', async () => {
    await scaffold(project.root, 'install', '--kubeconfig', kc.file);
    const out = await scaffold(project.root, 'uninstall', '--kubeconfig', kc.file);
    expect(out).toBe('customresourcedefinition.apiextensions.k8s.io/captains.crew.example.com deleted');
    await expect(client.get(CustomResourceDefinitions, { name: 'captains.crew.example.com' })).rejects.toSatisfy(
      isNotFound,
    );
  });
});

describe('a cluster that cannot be used is a clear error', () => {
  it('a kubeconfig file that does not exist', async () => {
    await expect(scaffold(project.root, 'install', '--kubeconfig', '/nonexistent/kubeconfig')).rejects.toThrow(
      'kubeconfig /nonexistent/kubeconfig does not exist; pass an existing file with --kubeconfig',
    );
  });

  it('a kubeconfig that is not one', async () => {
    const bad = kubeconfigFile('this: [is not\n');
    try {
      await expect(scaffold(project.root, 'install', '--kubeconfig', bad.file)).rejects.toThrow(
        /cannot use the kubeconfig .*config: .*Pass a valid kubeconfig with --kubeconfig/,
      );
    } finally {
      bad.cleanup();
    }
  });

  it('a context the kubeconfig does not have', async () => {
    await expect(scaffold(project.root, 'deploy', '--kubeconfig', kc.file, '--context', 'nope')).rejects.toThrow(
      /context "nope" not found/,
    );
  });

  it('a server that does not answer', async () => {
    const { unreachableKubeconfig } = await import('./helpers.js');
    const off = kubeconfigFile(unreachableKubeconfig);
    try {
      await expect(scaffold(project.root, 'install', '--kubeconfig', off.file)).rejects.toThrow(
        /no cluster answers at https:\/\/127.0.0.1:1 \(connection refused; context "nowhere"\)/,
      );
    } finally {
      off.cleanup();
    }
    expect(existsSync(project.root)).toBe(true);
  });
});
