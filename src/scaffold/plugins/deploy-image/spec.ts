import type { PluginSpecData } from '../plugin.js';

// deploy-image/v1-alpha as data: the registry reads it, and it imports nothing of the registry or of the plugin's code.

/** kubebuilder's key for the plugin, as PROJECT records it. */
export const DEPLOY_IMAGE_KEY = 'deploy-image.go.kubebuilder.io/v1-alpha';

/**
 * deploy-image/v1-alpha: `create api --plugins=deploy-image/v1-alpha --image=<image>` scaffolds an API whose controller
 * deploys and manages that image (the operand).
 */
export const deployImageSpec: PluginSpecData = {
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
};
