/**
 * The projects the scaffold snapshot tests generate, as steps that both kubescaffold and kubebuilder can run: each
 * step is the options object of one scaffold command, and kubebuilderArgs() spells the same step as kubebuilder flags.
 */
import { scaffoldCreateAPI, type CreateAPIOptions } from '../../src/scaffold/api.js';
import type { InitOptions } from '../../src/scaffold/init.js';
import { scaffoldCreateWebhook, type CreateWebhookOptions } from '../../src/scaffold/webhook.js';
import { defaultInit, initProject } from './helpers.js';

export type Step =
  | { init: Partial<InitOptions> }
  | { api: Omit<CreateAPIOptions, 'force'> }
  | { webhook: Omit<CreateWebhookOptions, 'force'> & { plural?: string } };

export interface ScaffoldCase {
  name: string;
  steps: Step[];
}

export const cases: ScaffoldCase[] = [
  {
    name: 'single-group',
    steps: [
      { init: { owner: 'The Crew Authors' } },
      { api: { group: 'crew', version: 'v1', kind: 'Captain', resource: true, controller: true, namespaced: true } },
      {
        api: {
          group: 'crew',
          version: 'v1',
          kind: 'Admiral',
          plural: 'admirales',
          resource: true,
          controller: true,
          namespaced: false,
        },
      },
      {
        api: { group: 'apps', version: 'v1', kind: 'Deployment', resource: false, controller: true, namespaced: true },
      },
    ],
  },
  {
    name: 'multigroup-namespaced',
    steps: [
      { init: { multigroup: true, namespaced: true, license: 'none' } },
      { api: { group: 'crew', version: 'v1', kind: 'Captain', resource: true, controller: true, namespaced: true } },
      {
        api: { group: 'ship', version: 'v1beta1', kind: 'Frigate', resource: true, controller: true, namespaced: true },
      },
    ],
  },
  {
    name: 'webhooks',
    steps: [
      { init: {} },
      { api: { group: 'crew', version: 'v1', kind: 'Captain', resource: true, controller: true, namespaced: true } },
      { api: { group: 'crew', version: 'v2', kind: 'Captain', resource: true, controller: false, namespaced: true } },
      { api: { group: 'crew', version: 'v1', kind: 'Admiral', resource: true, controller: true, namespaced: false } },
      {
        webhook: {
          group: 'crew',
          version: 'v1',
          kind: 'Captain',
          defaulting: true,
          validation: true,
          conversion: true,
          spokes: ['v2'],
        },
      },
      {
        webhook: {
          group: 'crew',
          version: 'v1',
          kind: 'Admiral',
          defaulting: false,
          validation: true,
          conversion: false,
          spokes: [],
        },
      },
    ],
  },
  {
    name: 'builtin-webhooks',
    steps: [
      { init: {} },
      {
        api: { group: 'apps', version: 'v1', kind: 'Deployment', resource: false, controller: true, namespaced: true },
      },
      {
        webhook: {
          group: 'apps',
          version: 'v1',
          kind: 'Deployment',
          defaulting: true,
          validation: true,
          conversion: false,
          spokes: [],
        },
      },
      {
        webhook: {
          group: 'core',
          version: 'v1',
          kind: 'Pod',
          defaulting: false,
          validation: true,
          conversion: false,
          spokes: [],
        },
      },
    ],
  },
  {
    // kubebuilder's documented path for another project's Kind: a controller for it, RBAC for its group, and PROJECT
    // recording it as external. The path is a package here (the Go import path, taken as an import specifier).
    name: 'external-api',
    steps: [
      { init: {} },
      {
        api: {
          group: 'cert-manager',
          version: 'v1',
          kind: 'Certificate',
          resource: false,
          controller: true,
          namespaced: true,
          externalApiPath: 'github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1',
          externalApiDomain: 'io',
        },
      },
    ],
  },
];

/** Runs the steps with kubescaffold's scaffolders in `root`. */
export function scaffold(root: string, steps: Step[]): void {
  for (const step of steps) {
    if ('init' in step) initProject(root, step.init);
    else if ('api' in step) scaffoldCreateAPI(root, { ...step.api, force: false });
    else scaffoldCreateWebhook(root, { ...step.webhook, force: false });
  }
}

/** The same steps as kubebuilder command lines, for a project directory named `name`. */
export function kubebuilderArgs(name: string, steps: Step[]): string[][] {
  return steps.map((step) => {
    if ('init' in step) {
      const o = { ...defaultInit, ...step.init };
      return [
        'init',
        `--domain=${o.domain}`,
        `--repo=${o.domain}/${name}`,
        `--license=${o.license}`,
        '--fetch-deps=false',
        '--skip-go-version-check',
        ...(o.owner ? [`--owner=${o.owner}`] : []),
        ...(o.multigroup ? ['--multigroup'] : []),
        ...(o.namespaced ? ['--namespaced'] : []),
      ];
    }
    if ('api' in step) {
      const a = step.api;
      return [
        'create',
        'api',
        `--group=${a.group}`,
        `--version=${a.version}`,
        `--kind=${a.kind}`,
        ...(a.plural ? [`--plural=${a.plural}`] : []),
        `--resource=${a.resource}`,
        `--controller=${a.controller}`,
        `--namespaced=${a.namespaced}`,
        ...(a.externalApiPath ? [`--external-api-path=${a.externalApiPath}`] : []),
        ...(a.externalApiDomain ? [`--external-api-domain=${a.externalApiDomain}`] : []),
        '--make=false',
      ];
    }
    const w = step.webhook;
    return [
      'create',
      'webhook',
      `--group=${w.group}`,
      `--version=${w.version}`,
      `--kind=${w.kind}`,
      ...(w.plural ? [`--plural=${w.plural}`] : []),
      `--defaulting=${w.defaulting}`,
      `--programmatic-validation=${w.validation}`,
      `--conversion=${w.conversion}`,
      ...w.spokes.map((s) => `--spoke=${s}`),
      '--make=false',
    ];
  });
}
