import { posix } from 'node:path';
import { ScaffoldError } from '../../../errors.js';
import { pluginConfig, sameGVK, withPluginConfig, type ProjectConfig } from '../../../project/project.js';
import { scaffoldCreateAPI } from '../../api.js';
import { render } from '../../render.js';
import type { PluginAPIRequest, PluginModule, PluginResult } from '../plugin.js';
import { isDeployImageConfig, type DeployImageOptions, type DeployImageResource } from './config.js';
import { addImageEnvVar } from './manager-env.js';
import { DEPLOY_IMAGE_KEY } from './spec.js';

/** The plugin's flags, as create api collected them. */
export interface DeployImageFlags {
  image?: unknown;
  imageContainerCommand?: unknown;
  imageContainerPort?: unknown;
  runAsUser?: unknown;
}

/** The validated flags. */
interface Operand {
  image: string;
  command: string[];
  port?: number;
  runAsUser?: number;
  /** The flags as given, for PROJECT. */
  options: DeployImageOptions;
}

// The characters of an image reference (registry host and port, path, tag, digest); anything else, spaces or quotes,
// would break the manifest and the code the image is written into.
const imageReference = /^[A-Za-z0-9][A-Za-z0-9._\-/:@]*$/;

/** Validates the flags as kubebuilder's PreScaffold does (and the image's characters, which it does not check). */
export function parseOperand(flags: DeployImageFlags): Operand {
  const text = (value: unknown): string => (typeof value === 'string' ? value : '');
  const image = text(flags.image);
  if (image === '') {
    throw new ScaffoldError(
      '--image is required with --plugins=deploy-image/v1-alpha: give the image the controller deploys, e.g. --image=memcached:1.6.26-alpine',
    );
  }
  if (!imageReference.test(image)) {
    throw new ScaffoldError(
      `--image "${image}" is not an image reference; give one such as memcached:1.6.26-alpine or registry.example.com/team/app:v1`,
    );
  }
  const options: DeployImageOptions = { image };
  const commandText = text(flags.imageContainerCommand);
  const command = commandText === '' ? [] : commandText.split(',').map((part) => part.trim());
  if (command.some((part) => part === '')) {
    throw new ScaffoldError(
      `--image-container-command "${commandText}" has an empty part; separate the command's words with single commas, e.g. "memcached,--memory-limit=64,-o,modern,-v"`,
    );
  }
  if (commandText !== '') options.containerCommand = commandText;
  const portText = text(flags.imageContainerPort);
  let port: number | undefined;
  if (portText !== '') {
    port = integerFlag('--image-container-port', portText);
    if (port < 1 || port > 65535)
      throw new ScaffoldError(`--image-container-port must be between 1 and 65535, got ${port}`);
    options.containerPort = portText;
  }
  const userText = text(flags.runAsUser);
  let runAsUser: number | undefined;
  if (userText !== '') {
    runAsUser = integerFlag('--run-as-user', userText);
    if (runAsUser < 0) throw new ScaffoldError(`--run-as-user must be non-negative, got ${runAsUser}`);
    // The operand runs under the restricted Pod Security Standard (runAsNonRoot), where the kubelet refuses user 0.
    if (runAsUser === 0)
      throw new ScaffoldError(
        '--run-as-user cannot be 0 (root): the operand container runs with runAsNonRoot: true; give a non-root user ID such as 1001',
      );
    // A Linux user ID is 32 bits; JavaScript numbers stay exact far beyond that.
    if (runAsUser > 2 ** 31 - 1)
      throw new ScaffoldError(`--run-as-user ${runAsUser} is larger than a user ID can be (2147483647)`);
    options.runAsUser = userText;
  }
  return { image, command, port, runAsUser, options };
}

/** An integer flag's value, refusing what is not one with kubebuilder's message. */
function integerFlag(flag: string, text: string): number {
  if (!/^[+-]?\d+$/.test(text)) throw new ScaffoldError(`${flag} must be a valid integer, got "${text}"`);
  return Number(text);
}

/** `create api --plugins=deploy-image/v1-alpha`: the plain create api with the operand's types, controller and test. */
export function createAPI(root: string, request: PluginAPIRequest, flags: Record<string, unknown>): PluginResult {
  const operand = parseOperand(flags as DeployImageFlags);
  if (!request.namespaced) {
    throw new ScaffoldError(
      '--namespaced=false cannot be used with --plugins=deploy-image/v1-alpha: its controller creates the Deployment in the namespace of the custom resource, so the API is namespaced',
    );
  }
  const envVar = `${request.kind.toUpperCase()}_IMAGE`;
  const reconcilerArgs = `mgr.getClient(), mgr.getEventRecorderFor('${request.kind.toLowerCase()}-controller')`;
  const { written } = scaffoldCreateAPI(
    root,
    { ...request, resource: true, controller: true },
    {
      templates: {
        types: 'plugins/deploy-image/types.ts',
        sample: 'plugins/deploy-image/sample.yaml',
        controller: 'plugins/deploy-image/controller.ts',
        controllerTest: 'plugins/deploy-image/controller.test.ts',
        controllerFakeTest: 'plugins/deploy-image/controller.fake.test.ts',
      },
      data: {
        imageEnvVar: envVar,
        testImage: 'example.com/image:test',
        containerCommand: operand.command.length > 0 ? operand.command.map(stringLiteral).join(', ') : '',
        containerPort: operand.port,
        runAsUser: operand.runAsUser === undefined ? '' : String(operand.runAsUser),
        // A container port's name is an IANA service name: at most 15 characters.
        portName: request.kind.toLowerCase().slice(0, 15),
      },
      reconcilerArgs,
      plan: (plan, { paths, data }) => {
        plan.template(
          `${posix.dirname(paths.controllerFile)}/conditions.ts`,
          render('plugins/deploy-image/conditions.ts', data),
          'skip',
        );
        plan.edit('config/manager/manager.yaml', (content) => addImageEnvVar(content, envVar, operand.image));
        plan.edit('cmd/main.ts', (content) =>
          withRecorderInPlace(
            content,
            request.kind,
            `new ${request.kind}Reconciler(${reconcilerArgs}).setupWithManager(mgr);`,
          ),
        );
      },
      project: (config) =>
        recordResource(config, {
          group: request.group,
          version: request.version,
          kind: request.kind,
          options: operand.options,
        }),
    },
  );
  return {
    written,
    notes: [
      `The controller deploys ${operand.image}, read from ${envVar}: config/manager/manager.yaml sets it for the deployed manager, make run-as-deployed and make test-e2e; export it for make run.`,
      'Next: check the implementation of your new API and controller, then generate the manifests with:\n$ npx scaffold manifests',
    ],
  };
}

/** PROJECT with the resource in the plugin's section (replacing an earlier entry for the same resource). */
function recordResource(config: ProjectConfig, r: Omit<DeployImageResource, 'domain'>): ProjectConfig {
  const existing = pluginConfig<unknown>(config, DEPLOY_IMAGE_KEY);
  const previous = isDeployImageConfig(existing) ? (existing.resources ?? []) : [];
  const entry: DeployImageResource = {
    domain: config.domain || undefined,
    group: r.group || undefined,
    kind: r.kind,
    options: r.options,
    version: r.version,
  };
  const gvk = (x: DeployImageResource) => ({
    group: x.group ?? '',
    version: x.version,
    kind: x.kind,
    domain: x.domain,
  });
  const resources = previous.some((p) => sameGVK(gvk(p), gvk(entry)))
    ? previous.map((p) => (sameGVK(gvk(p), gvk(entry)) ? entry : p))
    : [...previous, entry];
  return withPluginConfig(config, DEPLOY_IMAGE_KEY, { ...(isDeployImageConfig(existing) ? existing : {}), resources });
}

/** A single-quoted TypeScript string literal of `value`. */
function stringLiteral(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** The module the plugin registry loads. */
export const deployImagePlugin: PluginModule = { createAPI };

/**
 * main.ts after a deploy-image create api over a plain one (--force): the reconciler now also takes the recorder, so
 * the plain setup line would no longer compile. The setup with the recorder takes its place, where it stood, as
 * kubebuilder adds the recorder to the existing setup in place; the copy create api put at the builder marker goes.
 */
function withRecorderInPlace(content: string, kind: string, recorderSetup: string): string {
  const lines = content.split('\n');
  const plain = lines.findIndex((l) => l.trim() === `new ${kind}Reconciler(mgr.getClient()).setupWithManager(mgr);`);
  if (plain < 0) return content;
  const indent = /^\s*/.exec(lines[plain]!)?.[0] ?? '';
  lines[plain] = indent + recorderSetup;
  const appended = lines.findIndex((l, i) => i !== plain && l.trim() === recorderSetup);
  if (appended >= 0) lines.splice(appended, 1);
  return lines.join('\n');
}
