import { describe, expect, it } from 'vitest';
import { conversionHubs } from '../../src/project/conversion-hubs.js';
import type { ProjectConfig } from '../../src/project/project.js';

const project = (resources: ProjectConfig['resources']): ProjectConfig => ({
  version: '3',
  domain: 'tutorial.kubebuilder.io',
  projectName: 'project',
  layout: ['typescript.kubescaffold.io/v1'],
  resources,
});

describe('conversionHubs', () => {
  it("names each Kind with a conversion webhook, its versions hub first, and the hub's kubectl resource name", () => {
    expect(
      conversionHubs(
        project([
          {
            group: 'batch',
            domain: 'tutorial.kubebuilder.io',
            version: 'v1',
            kind: 'CronJob',
            webhooks: { webhookVersion: 'v1', defaulting: true, conversion: true, spoke: ['v2'] },
          },
          { group: 'batch', domain: 'tutorial.kubebuilder.io', version: 'v2', kind: 'CronJob' },
        ]),
      ),
    ).toEqual([{ kind: 'CronJob', versions: ['v1', 'v2'], hubResource: 'cronjobs.v1.batch.tutorial.kubebuilder.io' }]);
  });

  it("uses PROJECT's plural and the project's domain when the resource has none", () => {
    expect(
      conversionHubs(
        project([
          {
            group: 'crew',
            version: 'v1',
            kind: 'Octopus',
            plural: 'octopodes',
            webhooks: { webhookVersion: 'v1', conversion: true, spoke: ['v2'] },
          },
        ]),
      ).map((h) => h.hubResource),
    ).toEqual(['octopodes.v1.crew.tutorial.kubebuilder.io']);
  });

  it('finds none without a conversion webhook', () => {
    expect(
      conversionHubs(
        project([
          { group: 'batch', version: 'v1', kind: 'CronJob', webhooks: { webhookVersion: 'v1', defaulting: true } },
        ]),
      ),
    ).toEqual([]);
    expect(conversionHubs(project(undefined))).toEqual([]);
  });
});
