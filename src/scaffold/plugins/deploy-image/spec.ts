import type { PluginReplay, PluginSpec } from '../registry.js';
import { isDeployImageConfig, type DeployImageConfig } from './config.js';

/** kubebuilder's key for the plugin, as PROJECT records it. */
export const DEPLOY_IMAGE_KEY = 'deploy-image.go.kubebuilder.io/v1-alpha';

/**
 * deploy-image/v1-alpha: `create api --plugins=deploy-image/v1-alpha --image=<image>` scaffolds an API whose controller
 * deploys and manages that image (the operand). This module stays light; the scaffolding loads on demand.
 */
export const deployImageSpec: PluginSpec = {
  key: DEPLOY_IMAGE_KEY,
  description: 'Scaffolds a CRD+controller to deploy an image-based Operand',
  subcommands: ['create api'],
  flags: {
    'create api': [
      {
        flags: '--image <image>',
        name: 'image',
        description:
          'operand image name (e.g. memcached:1.6.26-alpine); the controller is scaffolded to deploy and manage this image (required)',
      },
      {
        flags: '--image-container-command <command>',
        name: 'imageContainerCommand',
        description:
          'command of the operand container, comma-separated (e.g. "memcached,--memory-limit=64,-o,modern,-v"); scaffolded into the Deployment the controller creates',
      },
      {
        flags: '--image-container-port <port>',
        name: 'imageContainerPort',
        description:
          'port the operand image listens on (e.g. 11211); scaffolded as containerPort in the API spec, the sample and the Deployment',
      },
      {
        flags: '--run-as-user <uid>',
        name: 'runAsUser',
        description:
          "user ID the operand container runs as (e.g. 1001); sets the container's securityContext.runAsUser",
      },
    ],
  },
  load: () => import('./index.js'),
  replay: (recorded: unknown): PluginReplay[] => replayDeployImage(recorded),
};

/** The `create api` commands that scaffold again each resource PROJECT records for the plugin. */
export function replayDeployImage(recorded: unknown): PluginReplay[] {
  if (!isDeployImageConfig(recorded)) return [];
  const config: DeployImageConfig = recorded;
  return (config.resources ?? []).map((r): PluginReplay => {
    const o = r.options ?? {};
    const flags: Record<string, unknown> = {};
    if (o.image !== undefined) flags.image = o.image;
    if (o.containerCommand) flags.imageContainerCommand = o.containerCommand;
    if (o.containerPort) flags.imageContainerPort = o.containerPort;
    if (o.runAsUser) flags.runAsUser = o.runAsUser;
    return {
      command: 'create api',
      request: { group: r.group ?? '', version: r.version, kind: r.kind, namespaced: true, force: false },
      flags,
    };
  });
}
