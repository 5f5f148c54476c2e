import { posix } from 'node:path';
import { ScaffoldError } from '../errors.js';
import { loadProject, projectFileHeader } from '../project/load.js';
import { pluralize } from '../project/flect.js';
import { Plan } from './plan.js';
import {
  NAMESPACED_WEBHOOKS_WARNING,
  qualifiedGroup,
  sameGVK,
  stringifyProject,
  type ProjectConfig,
  type ProjectResource,
} from '../project/project.js';
import { render } from './render.js';
import { resourcePaths } from './api.js';
import {
  builtInAPIGroup,
  clientNodeHasModel,
  clientNodeModelName,
  isClusterScopedBuiltIn,
  runtimeDescriptorName,
} from './builtin-kinds.js';
import { uncommentBlock, uncommentExact, uncommentLine1 } from './uncomment.js';

export interface CreateWebhookOptions {
  group: string;
  version: string;
  kind: string;
  defaulting: boolean;
  validation: boolean;
  conversion: boolean;
  spokes: string[];
  force: boolean;
  /** The defaulting webhook's path in place of /mutate-<group>-<version>-<kind> (kubebuilder's --defaulting-path). */
  defaultingPath?: string;
  /** The validating webhook's path in place of /validate-<group>-<version>-<kind> (--validation-path). */
  validationPath?: string;
}

const defaultKustomization = 'config/default/kustomization.yaml';

// The manager's webhook server, added to main.ts with the first webhook (a project without webhooks never loads
// their code).
const WEBHOOK_SERVER_OPTION = `// Webhooks are served on --webhook-port with the certificate in --webhook-cert-path; without one, a CA and serving
// certificate are generated and the CA is put into the webhook configurations and CRDs that point at this host.
webhookServer: new WebhookServer({
  port: Number(flags['webhook-port']),
  certDir: flags['webhook-cert-path'] || undefined,
  certName: flags['webhook-cert-name'],
  keyName: flags['webhook-cert-key'],
}),`;

/** kubebuilder's webhook paths: /mutate-<group with dots as dashes>-<version>-<lowercase kind>. */
export function webhookPath(kind: 'mutate' | 'validate', group: string, version: string, resourceKind: string): string {
  return `/${kind}-${group.replaceAll('.', '-')}-${version}-${resourceKind.toLowerCase()}`;
}

/**
 * `scaffold create webhook`: webhook code, main.ts wiring, config/webhook, config/certmanager and the kustomize toggles,
 * for one of the project's APIs or a Kubernetes built-in kind (defaulting and validation only).
 */
export function scaffoldCreateWebhook(
  root: string,
  options: CreateWebhookOptions,
): { written: string[]; warnings: string[] } {
  const config = loadProject(root);
  const { group, version, kind } = options;
  if (!options.defaulting && !options.validation && !options.conversion) {
    throw new ScaffoldError(
      'scaffold create webhook requires at least one of --defaulting, --programmatic-validation and --conversion',
    );
  }
  const resources = config.resources ?? [];
  const own = resources.find((r) => sameGVK(r, { group, version, kind, domain: config.domain }));
  // kubebuilder's rule: a kind of a Kubernetes group that the project has no API for is the built-in one.
  const builtIn = own?.api ? undefined : builtInAPIGroup(group);
  const apiGroup = builtIn ?? qualifiedGroup(group, config.domain);
  let builtInType: string | undefined;
  if (builtIn !== undefined) {
    const gv = `${builtIn || 'core'}/${version}`;
    if (options.conversion) {
      throw new ScaffoldError(
        `--conversion cannot be used for ${gv} ${kind}: it is a Kubernetes built-in kind, whose versions the API server converts itself; conversion webhooks are for the project's own APIs (drop --conversion and --spoke)`,
      );
    }
    builtInType = clientNodeModelName(version, kind);
    if (!clientNodeHasModel(builtInType)) {
      throw new ScaffoldError(
        `${gv} ${kind} is not a Kubernetes built-in kind known to @kubernetes/client-node (no model ${builtInType}); check --group, --version and --kind`,
      );
    }
  } else if (!own?.api) {
    throw new ScaffoldError(
      `no API found for ${apiGroup}/${version}, Kind ${kind}: run \`scaffold create api --group ${group} --version ${version} --kind ${kind}\` first`,
    );
  }
  checkCustomPaths(options);
  if (options.spokes.length > 0 && !options.conversion)
    throw new ScaffoldError('--spoke can only be used with --conversion');
  if (options.conversion && options.spokes.length === 0) {
    throw new ScaffoldError(
      '--conversion needs the other versions to convert from: pass --spoke v2 (each spoke must be an API created with `scaffold create api`)',
    );
  }
  // A built-in kind is recorded once, as `create api --resource=false` records it for its controller.
  const existing =
    builtIn === undefined
      ? own
      : resources.find((r) => r.core && r.group === group && r.version === version && r.kind === kind);
  const spokeResources: ProjectResource[] = [];
  for (const spoke of options.spokes) {
    if (spoke === version) {
      throw new ScaffoldError(
        `--spoke ${spoke} is the hub (--version ${version}): a spoke is another version of ${kind} that converts to and from the hub`,
      );
    }
    const found = resources.find((r) => r.api && sameGVK(r, { group, version: spoke, kind, domain: config.domain }));
    if (!found) {
      throw new ScaffoldError(
        `invalid spoke version "${spoke}": create it first with \`scaffold create api --group ${group} --version ${spoke} --kind ${kind}\` (a spoke is another version of the same group and kind)`,
      );
    }
    spokeResources.push(found);
  }
  const had = existing?.webhooks ?? { webhookVersion: 'v1' };
  for (const [asked, has, name] of [
    [options.defaulting, had.defaulting, 'defaulting'],
    [options.validation, had.validation, 'validation'],
    [options.conversion, had.conversion, 'conversion'],
  ] as const) {
    if (asked && has && !options.force)
      throw new ScaffoldError(`${name} webhook already exists for this resource; pass --force to scaffold it again`);
  }
  const hubOfOthers = resources.find(
    (r) => r.webhooks?.conversion && r.group === group && r.kind === kind && r.version !== version,
  );
  if (options.conversion && hubOfOthers) {
    throw new ScaffoldError(
      `${kind} already has a conversion hub, ${hubOfOthers.version}; add spokes there with \`scaffold create webhook --version ${hubOfOthers.version} --conversion --spoke ...\``,
    );
  }

  // A built-in kind's descriptor is the runtime's (Deployments, Pods, ...) when it has one, else the webhook file's own.
  const runtimeDescriptor = builtIn === undefined ? undefined : runtimeDescriptorName(apiGroup, version, kind);
  const paths = builtIn === undefined ? resourcePaths(config, { group, version, kind }) : undefined;
  const webhookDir =
    config.multigroup && group ? `internal/webhook/${group}/${version}` : `internal/webhook/${version}`;
  const webhookFile = `${webhookDir}/${kind.toLowerCase()}_webhook.ts`;
  const wants = {
    defaulting: options.defaulting || Boolean(had.defaulting),
    validation: options.validation || Boolean(had.validation),
    conversion: options.conversion || Boolean(had.conversion),
  };
  const plural = existing?.plural ?? pluralize(kind.toLowerCase());
  const header = projectFileHeader(root);
  const lowerCamelKind = kind.charAt(0).toLowerCase() + kind.slice(1);
  const spokeNames = [...new Set([...(had.spoke ?? []), ...options.spokes])].sort();
  // A path given now replaces the recorded one; a webhook scaffolded again without one keeps what PROJECT records.
  const customPaths = {
    defaulting: wants.defaulting ? (options.defaultingPath ?? had.defaultingPath) : undefined,
    validation: wants.validation ? (options.validationPath ?? had.validationPath) : undefined,
  };
  const data = {
    boilerplate: header,
    projectName: config.projectName,
    kind,
    lowerKind: kind.toLowerCase(),
    lowerCamelKind,
    version,
    plural,
    qualifiedGroup: apiGroup,
    // kubebuilder writes groups="" for the core group, whose name is empty.
    markerGroup: apiGroup === '' ? '""' : apiGroup,
    apiVersion: apiGroup === '' ? version : `${apiGroup}/${version}`,
    namespaced: builtIn === undefined ? Boolean(existing?.api?.namespaced) : !isClusterScopedBuiltIn(kind),
    builtIn: builtIn !== undefined,
    builtInType,
    runtimeDescriptor,
    localDescriptor: builtIn !== undefined && runtimeDescriptor === undefined,
    descriptor: runtimeDescriptor ?? `${kind}Resource`,
    ...wants,
    hasAdmission: wants.defaulting || wants.validation,
    defaultingPath: customPaths.defaulting ?? webhookPath('mutate', apiGroup, version, kind),
    validationPath: customPaths.validation ?? webhookPath('validate', apiGroup, version, kind),
    customDefaultingPath: customPaths.defaulting !== undefined,
    customValidationPath: customPaths.validation !== undefined,
    // A built-in kind's type is declared in the webhook file itself.
    typesImport: paths
      ? posix.relative(webhookDir, paths.typesFile).replace(/\.ts$/, '.js')
      : `./${kind.toLowerCase()}_webhook.js`,
    resourcesImport: paths ? posix.relative(webhookDir, paths.resourcesFile).replace(/\.ts$/, '.js') : undefined,
    sampleFile: paths?.sampleFile,
    spokes: spokeNames.map((spoke) => {
      const spokePaths = resourcePaths(config, { group, version: spoke, kind });
      return {
        version: spoke,
        pascalVersion: spoke.charAt(0).toUpperCase() + spoke.slice(1),
        resourcesImport: posix.relative(webhookDir, spokePaths.resourcesFile).replace(/\.ts$/, '.js'),
        conversionImport: posix.relative(webhookDir, `${spokePaths.apiDir}/${kind.toLowerCase()}_conversion.js`),
      };
    }),
  };

  const plan = new Plan(root);
  // A webhook file holds every webhook type of its kind, so adding a type re-renders it: that needs --force once the
  // file exists (kubebuilder edits it in place instead).
  if (plan.current(webhookFile) !== undefined && !options.force) {
    plan.fail(
      `${webhookFile} already exists; adding a webhook type re-renders it, so pass --force (commit your changes first and merge them back)`,
    );
  }
  plan.template(webhookFile, render('webhook/webhook.ts', data), 'overwrite');
  if (wants.defaulting || wants.validation) {
    plan.template(
      webhookFile.replace(/\.ts$/, '.test.ts'),
      render('webhook/webhook.test.ts', data),
      options.force ? 'overwrite' : 'skip',
    );
  }
  plan.insert('cmd/main.ts', {
    imports: [
      "import { WebhookServer } from '@kubescaffold/runtime/webhook';",
      `import { setup${kind}WebhookWithManager } from '../${webhookFile.replace(/\.ts$/, '.js')}';`,
    ],
    'manager-options': [WEBHOOK_SERVER_OPTION],
    builder: [`if (process.env.ENABLE_WEBHOOKS !== 'false') {\n  setup${kind}WebhookWithManager(mgr);\n}`],
  });

  const configData = { projectName: config.projectName, plural, qualifiedGroup: apiGroup };
  plan.template(
    'config/webhook/kustomization.yaml',
    render('webhook/config/webhook/kustomization.yaml', configData),
    options.force ? 'overwrite' : 'skip',
  );
  plan.template('config/webhook/service.yaml', render('webhook/config/webhook/service.yaml', configData), 'skip');
  for (const file of ['issuer', 'certificate-webhook', 'certificate-metrics', 'kustomization', 'kustomizeconfig']) {
    plan.template(
      `config/certmanager/${file}.yaml`,
      render(`webhook/config/certmanager/${file}.yaml`, configData),
      'skip',
    );
  }
  plan.template(
    'config/default/manager_webhook_patch.yaml',
    render('webhook/config/default/manager_webhook_patch.yaml', configData),
    'skip',
  );
  plan.template(
    'config/network-policy/allow-webhook-traffic.yaml',
    render('webhook/config/network-policy/allow-webhook-traffic.yaml', configData),
    'skip',
  );
  plan.edit(
    'config/network-policy/kustomization.yaml',
    (content) =>
      content.split('\n').some((l) => l.trim() === '- allow-webhook-traffic.yaml')
        ? content
        : content.replace(
            /^- allow-metrics-traffic\.yaml$/m,
            '- allow-webhook-traffic.yaml\n- allow-metrics-traffic.yaml',
          ),
    { ifMissing: 'ignore' },
  );
  plan.edit(defaultKustomization, (content) => {
    let next = uncommentLine1(content, '#- ../webhook');
    next = uncommentLine1(next, '#- ../certmanager');
    next = uncommentLine1(next, '#patches:');
    next = uncommentExact(next, '#- path: manager_webhook_patch.yaml\n#  target:\n#    kind: Deployment');
    next = uncommentLine1(next, '#replacements:');
    next = uncommentBlock(next, 'Uncomment the following block if you have any webhook');
    if (wants.validation) next = uncommentBlock(next, 'Uncomment the following block if you have a ValidatingWebhook');
    if (wants.defaulting) next = uncommentBlock(next, 'Uncomment the following block if you have a DefaultingWebhook');
    return next;
  });

  if (options.conversion && paths) {
    const crdName = `${plural}.${apiGroup}`;
    const select = (index: number) =>
      `#     - select:\n#         kind: CustomResourceDefinition\n#         name: ${crdName}\n#       fieldPaths:\n#         - .metadata.annotations.[cert-manager.io/inject-ca-from]\n#       options:\n#         delimiter: '/'\n#         index: ${index}\n#         create: true`;
    plan.insert(defaultKustomization, {
      crdkustomizecainjectionns: [select(0)],
      crdkustomizecainjectionname: [select(1)],
    });
    plan.edit(defaultKustomization, (content) =>
      uncommentBlock(
        content,
        'Uncomment the following block if you have a ConversionWebhook',
        '+kubebuilder:scaffold:crdkustomizecainjectionname',
      ),
    );
    const patchName = `webhook_in_${config.multigroup && group ? `${group}_` : ''}${plural}.yaml`;
    plan.template(
      `config/crd/patches/${patchName}`,
      render('webhook/config/crd/patches/webhook_in.yaml', configData),
      'skip',
    );
    plan.insert('config/crd/kustomization.yaml', { crdkustomizewebhookpatch: [`- path: patches/${patchName}`] });
    plan.edit('config/crd/kustomization.yaml', (content) =>
      uncommentExact(content, '#configurations:\n#- kustomizeconfig.yaml'),
    );
    // The hub is the storage version; spokes convert through it.
    plan.edit(paths.typesFile, (content) => markStorageVersion(content, kind));
    plan.template(`${paths.apiDir}/${kind.toLowerCase()}_conversion.ts`, render('webhook/hub.ts', data), 'skip');
    for (const spoke of options.spokes) {
      const spokePaths = resourcePaths(config, { group, version: spoke, kind });
      plan.template(
        `${spokePaths.apiDir}/${kind.toLowerCase()}_conversion.ts`,
        render('webhook/conversion.ts', {
          ...data,
          version: spoke,
          apiVersion: `${apiGroup}/${spoke}`,
          hubVersion: version,
          hubAPIVersion: `${apiGroup}/${version}`,
          hubTypesImport: posix.relative(spokePaths.apiDir, paths.typesFile).replace(/\.ts$/, '.js'),
        }),
        options.force ? 'overwrite' : 'error',
      );
    }
  }

  const entry: ProjectResource = {
    ...(existing ?? { core: true, group, version, kind, path: '@kubernetes/client-node' }),
    webhooks: {
      webhookVersion: 'v1',
      defaulting: wants.defaulting || undefined,
      validation: wants.validation || undefined,
      conversion: wants.conversion || undefined,
      spoke: spokeNames.length > 0 ? spokeNames : undefined,
      defaultingPath: customPaths.defaulting,
      validationPath: customPaths.validation,
    },
  };
  const next: ProjectConfig = {
    ...config,
    resources: existing ? resources.map((r) => (r === existing ? entry : r)) : [...resources, entry],
  };
  plan.template('PROJECT', stringifyProject(next), 'overwrite');
  const written = plan.commit();
  // kubebuilder's warning: the webhook's own Pods (or those it depends on) may be of the kind it admits.
  const warnings =
    builtIn === undefined
      ? []
      : [
          'Webhooks for core types may cause circular dependencies during deployment. More info: https://book.kubebuilder.io/reference/webhook-bootstrap-problem',
        ];
  if (config.namespaced) warnings.push(NAMESPACED_WEBHOOKS_WARNING);
  return { written, warnings };
}

/** Refuses a custom path without its webhook (kubebuilder's rule), or one that cannot stand in a marker or a URL. */
function checkCustomPaths(options: CreateWebhookOptions): void {
  for (const [path, flag, wanted, needs] of [
    [options.defaultingPath, '--defaulting-path', options.defaulting, '--defaulting'],
    [options.validationPath, '--validation-path', options.validation, '--programmatic-validation'],
  ] as const) {
    if (path === undefined) continue;
    if (!wanted) throw new ScaffoldError(`${flag} can only be used with ${needs}`);
    if (!/^\/[A-Za-z0-9._~/-]*$/.test(path))
      throw new ScaffoldError(
        `${flag} "${path}" is not a webhook path: give one that starts with / and holds only letters, digits and . _ ~ / -, e.g. /custom-mutate`,
      );
  }
  if (options.defaultingPath !== undefined && options.defaultingPath === options.validationPath)
    throw new ScaffoldError(
      `--defaulting-path and --validation-path are both ${options.defaultingPath}: each webhook needs its own path`,
    );
}

/** Adds +kubebuilder:storageversion to the Kind's marker block, once. */
function markStorageVersion(content: string, kind: string): string {
  const declaration = new RegExp(`^export interface ${kind}\\b`, 'm');
  const match = declaration.exec(content);
  if (!match) return content;
  const before = content.slice(0, match.index);
  const rootMarker = before.lastIndexOf('// +kubebuilder:object:root=true');
  if (rootMarker < 0 || before.slice(rootMarker).includes('+kubebuilder:storageversion')) return content;
  const insertAt = rootMarker + '// +kubebuilder:object:root=true\n'.length;
  return content.slice(0, insertAt) + '// +kubebuilder:storageversion\n' + content.slice(insertAt);
}
