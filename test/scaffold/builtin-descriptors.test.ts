/**
 * `create api --resource=false` and `create webhook` for a built-in kind: the scaffold uses the descriptor
 * @kubescaffold/runtime/rest exports for the kind (ConfigMaps, Deployments, ...) rather than defining a copy, and
 * defines one only for a built-in kind the runtime has none for. Both compile against the runtime.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import * as rest from '../../src/runtime/rest/index.js';
import { scaffoldCreateAPI } from '../../src/scaffold/api.js';
import { builtInAPIGroup, runtimeDescriptorName } from '../../src/scaffold/builtin-kinds.js';
import { scaffoldCreateWebhook } from '../../src/scaffold/webhook.js';
import { typeErrors } from '../support/typecheck.js';
import { initProject, tempProjectDir } from './helpers.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function newProject(): string {
  const { root, cleanup } = tempProjectDir();
  cleanups.push(cleanup);
  initProject(root);
  return root;
}

function createController(root: string, group: string, version: string, kind: string): void {
  scaffoldCreateAPI(root, { group, version, kind, resource: false, controller: true, namespaced: true, force: false });
}

const read = (root: string, path: string): string => readFileSync(join(root, path), 'utf8');

describe("the runtime's descriptors of built-in kinds", () => {
  it('are found by group, version and kind, each the object the runtime exports by that name', () => {
    for (const resource of rest.builtinResources) {
      const name = runtimeDescriptorName(resource.group, resource.version, resource.kind);
      expect(name, resource.apiVersion + ' ' + resource.kind).toBeDefined();
      expect((rest as Record<string, unknown>)[name!]).toBe(resource);
    }
    // the two Events: core v1's and events.k8s.io's
    expect(runtimeDescriptorName('', 'v1', 'Event')).toBe('CoreEvents');
    expect(runtimeDescriptorName(builtInAPIGroup('events')!, 'v1', 'Event')).toBe('Events');
    expect(runtimeDescriptorName('', 'v1', 'ConfigMap')).toBe('ConfigMaps');
    expect(runtimeDescriptorName(builtInAPIGroup('apps')!, 'v1', 'Deployment')).toBe('Deployments');
    expect(runtimeDescriptorName(builtInAPIGroup('batch')!, 'v1', 'CronJob')).toBe('CronJobs');
  });

  it('are not found for a built-in kind the runtime has none for, nor for another version or group', () => {
    expect(runtimeDescriptorName('', 'v1', 'LimitRange')).toBeUndefined();
    expect(runtimeDescriptorName('', 'v2', 'ConfigMap')).toBeUndefined();
    expect(runtimeDescriptorName('apps', 'v1', 'ConfigMap')).toBeUndefined();
    // a name the module exports that is no descriptor of builtinResources
    expect(runtimeDescriptorName('', 'v1', 'builtinResources')).toBeUndefined();
  });
});

describe('create api --resource=false and create webhook for built-in kinds', () => {
  // One project with every case, type-checked once (the compiler is the slow part).
  let root: string;
  let removeProject: () => void;
  beforeAll(() => {
    const project = tempProjectDir();
    ({ root } = project);
    removeProject = project.cleanup;
    initProject(root);
    createController(root, 'core', 'v1', 'ConfigMap');
    createController(root, 'apps', 'v1', 'Deployment');
    createController(root, 'batch', 'v1', 'Job');
    createController(root, 'core', 'v1', 'Event');
    createController(root, 'core', 'v1', 'LimitRange');
    webhook(root, 'apps', 'Deployment');
    webhook(root, 'core', 'LimitRange');
  });
  afterAll(() => removeProject());

  it.each([
    ['core', 'ConfigMap', 'ConfigMaps', 'configmap'],
    ['apps', 'Deployment', 'Deployments', 'deployment'],
    ['batch', 'Job', 'Jobs', 'job'],
  ])(
    '%s v1 %s: the controller and its fake-client test use the runtime descriptor %s',
    (_group, kind, descriptor, base) => {
      const controller = read(root, `internal/controller/${base}_controller.ts`);
      expect(controller).toContain(`import { ${descriptor} } from '@kubescaffold/runtime/rest';`);
      expect(controller).toContain(`await this.client.get(${descriptor}, req)`);
      expect(controller).toContain(`newControllerManagedBy(mgr).for(${descriptor})`);
      // no local copy: nothing is defined, the kind's model type is not named
      expect(controller).not.toContain('defineResource');
      expect(controller).not.toContain('k8s.');
      // main.ts of a multi-cluster project imports <Kind>Resource from the controller: the same object, by that name
      expect(controller).toContain(`export { ${descriptor} as ${kind}Resource };`);
      const fake = read(root, `internal/controller/${base}_controller.fake.test.ts`);
      expect(fake).toContain(`import { ${descriptor} } from '@kubescaffold/runtime/rest';`);
      expect(fake).toContain(`new FakeClient({ statusSubresource: [${descriptor}] })`);
      expect(fake).toContain(`import { ${kind}Reconciler } from './${base}_controller.js';`);
    },
  );

  it("core v1 Event, which @kubernetes/client-node models as CoreV1Event, is the runtime's CoreEvents", () => {
    expect(read(root, 'internal/controller/event_controller.ts')).toContain('.for(CoreEvents)');
    const other = newProject();
    createController(other, 'events', 'v1', 'Event');
    expect(read(other, 'internal/controller/event_controller.ts')).toContain('.for(Events)');
  });

  it('a built-in kind the runtime has no descriptor for (core v1 LimitRange) keeps its own <Kind>Resource', () => {
    const controller = read(root, 'internal/controller/limitrange_controller.ts');
    expect(controller).toContain('export const LimitRangeResource = defineResource<k8s.V1LimitRange>({');
    expect(controller).toContain("  group: '',\n  version: 'v1',\n  kind: 'LimitRange',\n  plural: 'limitranges',");
    expect(controller).toContain('.for(LimitRangeResource)');
    expect(controller).not.toContain('@kubescaffold/runtime/rest');
    const fake = read(root, 'internal/controller/limitrange_controller.fake.test.ts');
    expect(fake).toContain("import { LimitRangeReconciler, LimitRangeResource } from './limitrange_controller.js';");
    expect(fake).not.toContain('@kubescaffold/runtime/rest');
  });

  it('a webhook registers for the runtime descriptor (apps v1 Deployment: Deployments)', () => {
    const file = read(root, 'internal/webhook/v1/deployment_webhook.ts');
    expect(file).toContain("import { Deployments } from '@kubescaffold/runtime/rest';");
    expect(file).toContain('newWebhookManagedBy(mgr, Deployments)');
    expect(file).toContain('export type Deployment = k8s.V1Deployment;');
    expect(file).not.toContain('defineResource');
  });

  it('a webhook for a built-in kind the runtime has no descriptor for (core v1 LimitRange) defines <Kind>Resource', () => {
    const file = read(root, 'internal/webhook/v1/limitrange_webhook.ts');
    expect(file).toContain('export const LimitRangeResource = defineResource<LimitRange>({');
    expect(file).toContain('newWebhookManagedBy(mgr, LimitRangeResource)');
    expect(file).not.toContain('@kubescaffold/runtime/rest');
  });

  it('compiles: every controller and webhook, and cmd/main.ts that wires them', () => {
    const files = [
      ...['configmap', 'deployment', 'job', 'event', 'limitrange'].map((b) => `internal/controller/${b}_controller.ts`),
      'internal/webhook/v1/deployment_webhook.ts',
      'internal/webhook/v1/limitrange_webhook.ts',
      'cmd/main.ts',
    ].map((f) => join(root, f));
    expect(typeErrors(files)).toEqual([]);
  });
});

function webhook(root: string, group: string, kind: string): void {
  scaffoldCreateWebhook(root, {
    group,
    version: 'v1',
    kind,
    defaulting: true,
    validation: true,
    conversion: false,
    spokes: [],
    force: false,
  });
}
