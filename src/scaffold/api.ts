import { existsSync } from 'node:fs';
import { join, posix } from 'node:path';
import { ScaffoldError } from '../errors.js';
import {
  builtInAPIGroup,
  clientNodeHasModel,
  clientNodeModelName,
  isClusterScopedBuiltIn,
  runtimeDescriptorName,
} from './builtin-kinds.js';
import { loadProject, projectFileHeader } from '../project/load.js';
import { pluralize } from '../project/flect.js';
import { checkDNS1035Label, checkDNS1123Subdomain } from '../project/names.js';
import {
  checkControllerName,
  controllerFileBase,
  controllerNames,
  normalizedControllerName,
  reconcilerClassName,
} from '../project/controllers.js';
import { Plan } from './plan.js';
import {
  qualifiedGroup,
  sameGVK,
  stringifyProject,
  type ProjectConfig,
  type ProjectResource,
} from '../project/project.js';
import { render } from './render.js';
import { planSharedTestEnvironment } from './test-setup.js';
import { resolveExternalAPI } from './external-api.js';
import { controllerWiring } from './controller-wiring.js';

export interface CreateAPIOptions {
  group: string;
  version: string;
  kind: string;
  plural?: string;
  resource: boolean;
  controller: boolean;
  namespaced: boolean;
  force: boolean;
  /**
   * The controller's name (kubebuilder's --controller-name): another controller for the kind, in its own file and
   * class, recorded in PROJECT's `controllers:` list. Undefined: the one controller named after the kind.
   */
  controllerName?: string;
  /** A Kind another project defines (kubebuilder's --external-api-path): a folder of imported types, or a package. */
  externalApiPath?: string;
  /** The domain of that Kind's group (kubebuilder's --external-api-domain): the group is <group>.<domain>. */
  externalApiDomain?: string;
  /**
   * The Kind's controller writes through server-side apply (kubebuilder's --ssa); recorded in PROJECT as api.ssa, so
   * that a controller scaffolded later for the Kind does too.
   */
  ssa?: boolean;
}

export interface CreateAPIResult {
  written: string[];
}

/** What a resource's templates are rendered with. */
export type CreateAPITemplateData = Record<string, unknown> & {
  kind: string;
  lowerKind: string;
  qualifiedGroup: string;
  projectName: string;
};

/**
 * How a create api plugin (deploy-image) changes the plain create api while keeping it one Plan: its own templates in
 * place of the default ones, more data for them, more files, and its PROJECT settings. Everything is validated and
 * written together, so a refusal anywhere leaves the project untouched.
 */
export interface CreateAPIExtension {
  /** Template names used instead of the default ones; null leaves that file out. */
  templates?: {
    types?: string;
    sample?: string;
    controller?: string;
    controllerTest?: string;
    controllerFakeTest?: string | null;
  };
  /** More data for every template. */
  data?: Record<string, unknown>;
  /** The arguments main.ts passes to the reconciler's constructor (default: the manager's client). */
  reconcilerArgs?: string;
  /** More changes to the same plan, after the plain create api's. */
  plan?(plan: Plan, context: { paths: ReturnType<typeof resourcePaths>; data: CreateAPITemplateData }): void;
  /** PROJECT as this run leaves it, given PROJECT with the resource recorded. */
  project?(config: ProjectConfig): ProjectConfig;
}

const reservedWords = new Set([
  'break',
  'case',
  'catch',
  'class',
  'const',
  'continue',
  'debugger',
  'default',
  'delete',
  'do',
  'else',
  'enum',
  'export',
  'extends',
  'false',
  'finally',
  'for',
  'function',
  'if',
  'import',
  'in',
  'instanceof',
  'new',
  'null',
  'return',
  'super',
  'switch',
  'this',
  'throw',
  'true',
  'try',
  'typeof',
  'var',
  'void',
  'while',
  'with',
  'let',
  'static',
  'yield',
  'await',
  'package',
  'interface',
  'private',
  'protected',
  'public',
  'implements',
]);

/** Where a resource's files live in a project of this layout; `controllerName` names one of several controllers. */
export function resourcePaths(
  config: ProjectConfig,
  r: { group: string; version: string; kind: string },
  controllerName?: string,
) {
  const lowerKind = r.kind.toLowerCase();
  const controllerBase = controllerFileBase(controllerName, r.kind);
  const grouped = Boolean(config.multigroup && r.group);
  const apiDir = grouped ? `api/${r.group}/${r.version}` : `api/${r.version}`;
  const controllerDir = grouped ? `internal/controller/${r.group}` : 'internal/controller';
  const rbacPrefix = grouped ? `${r.group}_${lowerKind}` : lowerKind;
  return {
    apiDir,
    typesFile: `${apiDir}/${lowerKind}_types.ts`,
    groupVersionFile: `${apiDir}/groupversion_info.ts`,
    resourcesFile: `${apiDir}/zz_generated.resources.ts`,
    controllerFileBase: controllerBase,
    controllerFile: `${controllerDir}/${controllerBase}_controller.ts`,
    controllerTestFile: `${controllerDir}/${controllerBase}_controller.test.ts`,
    controllerFakeTestFile: `${controllerDir}/${controllerBase}_controller.fake.test.ts`,
    sampleFile: `config/samples/${r.group ? `${r.group}_` : ''}${r.version}_${lowerKind}.yaml`,
    roleFile: (role: string) => `config/rbac/${rbacPrefix}_${role}_role.yaml`,
    roleName: (role: string) => `${grouped ? `${r.group}-` : ''}${lowerKind}-${role}-role`,
    // the name the manager knows the controller by (kubebuilder's GetControllerName)
    controllerName: grouped ? `${r.group}-${controllerName ?? lowerKind}` : (controllerName ?? lowerKind),
    reconcilerClass: reconcilerClassName(controllerName, r.kind),
    mainImport: `../${controllerDir}/${controllerBase}_controller.js`,
    apiImportFromController: `${posix.relative(controllerDir, apiDir)}/zz_generated.resources.js`,
  };
}

/** `scaffold create api`: validates everything first, then writes types, controller, test, sample, roles and wiring. */
export function scaffoldCreateAPI(
  root: string,
  options: CreateAPIOptions,
  extension: CreateAPIExtension = {},
): CreateAPIResult {
  const config = loadProject(root);
  const { group, version, kind } = options;
  if (!options.resource && !options.controller) {
    throw new ScaffoldError(
      'nothing to scaffold: --resource=false and --controller=false; keep at least one of them true',
    );
  }

  if (options.externalApiDomain !== undefined && options.externalApiPath === undefined)
    throw new ScaffoldError('--external-api-domain needs --external-api-path (where the Kind is defined)');
  if (options.externalApiPath !== undefined && options.resource)
    throw new ScaffoldError(
      "cannot use '--external-api-path' or '--external-api-domain' when creating an API in the project with '--resource=true'. Use '--resource=false' when referencing an external API",
    );
  if (options.ssa && !options.resource)
    throw new ScaffoldError(
      '--ssa applies to an API this project defines: use it with --resource=true (a controller created later for the Kind uses server-side apply when PROJECT records api.ssa)',
    );
  const isExternal = options.externalApiPath !== undefined;
  const builtIn = builtInAPIGroup(group);
  const isBuiltIn = builtIn !== undefined && !options.resource && !isExternal;
  const domain = isBuiltIn ? '' : isExternal ? (options.externalApiDomain ?? '') : config.domain;
  const apiGroup = isBuiltIn ? builtIn : qualifiedGroup(group, domain);

  if (!isBuiltIn) {
    if (apiGroup === '') throw new ScaffoldError('group cannot be empty if the domain is empty; pass --group');
    const problem = checkDNS1123Subdomain(apiGroup);
    if (problem)
      throw new ScaffoldError(
        `either Group or Domain is invalid: "${apiGroup}": ${problem}; fix --group (or the project's domain)`,
      );
  }
  if (!version) throw new ScaffoldError('version cannot be empty; pass --version, e.g. --version v1');
  // kubebuilder's rule (pkg/model/resource): the API server serves only versions of this form.
  if (checkDNS1123Subdomain(version) || !/^v\d+(?:alpha\d+|beta\d+)?$/.test(version)) {
    throw new ScaffoldError(
      `invalid version "${version}": a Kubernetes API version is v<N>, v<N>alpha<M> or v<N>beta<M>, such as v1, v1alpha1 or v2beta1`,
    );
  }
  if (!kind) throw new ScaffoldError('kind cannot be empty; pass --kind, e.g. --kind CronJob');
  if (!/^[A-Z]/.test(kind)) {
    // The example drops what cannot start a Kind (1Captain → Captain), so that it is a valid one.
    const rest = kind.replace(/^[^A-Za-z]+/, '');
    const example = rest ? `${rest.charAt(0).toUpperCase()}${rest.slice(1)}` : 'CronJob';
    throw new ScaffoldError(`invalid Kind "${kind}": must start with an uppercase letter, e.g. ${example}`);
  }
  const kindProblem = checkDNS1035Label(kind.toLowerCase());
  if (kindProblem || !/^[A-Za-z0-9]+$/.test(kind)) {
    throw new ScaffoldError(
      `invalid Kind "${kind}": ${kindProblem ?? 'must hold only letters and digits'}; use a PascalCase name such as CronJob`,
    );
  }
  const defaultPlural = pluralize(kind.toLowerCase());
  const plural = options.plural ?? defaultPlural;
  const pluralProblem = checkDNS1035Label(plural);
  if (pluralProblem)
    throw new ScaffoldError(`invalid Plural "${plural}": ${pluralProblem}; pass a lowercase plural with --plural`);

  const resources = config.resources ?? [];
  const gvk = { group, version, kind, domain };
  const existing = resources.find((r) => sameGVK(r, gvk));
  const { controllerName } = options;
  if (controllerName !== undefined) checkNewControllerName(controllerName, options, existing, apiGroup);
  else if (options.controller && existing?.controllers && existing.controllers.length > 0) {
    throw new ScaffoldError(
      `${apiGroup}/${version}, Kind=${kind} already has named controllers (${controllerNames(existing).join(', ')}); pass --controller-name to add another controller, or --controller=false to skip controller scaffolding`,
    );
  }
  if (options.resource && existing?.api && !options.force) {
    throw new ScaffoldError(
      `API resource already exists: ${apiGroup}/${version}, Kind=${kind}; pass --force to scaffold its files again`,
    );
  }
  if (
    options.controller &&
    controllerName === undefined &&
    !options.resource &&
    existing?.controller &&
    !options.force
  ) {
    throw new ScaffoldError(
      `a controller already exists for ${apiGroup}/${version}, Kind=${kind}; pass --force to scaffold it again`,
    );
  }
  // One controller reconciles every version of a kind, and its file is named after the kind (or its name) alone.
  const ownBase = controllerFileBase(controllerName, kind);
  const controllerOfOtherVersion = resources.find(
    (r) =>
      r.group === group &&
      r.kind === kind &&
      r.version !== version &&
      controllerNames(r).some((n) => controllerFileBase(n, kind) === ownBase),
  );
  if (options.controller && controllerOfOtherVersion && !options.force) {
    throw new ScaffoldError(
      `${kind} already has a controller, created with version ${controllerOfOtherVersion.version} (${resourcePaths(config, { group, version, kind }, controllerName).controllerFile}); one controller reconciles every version of a kind: pass --controller=false to add only the ${version} types, or --controller-name for another controller`,
    );
  }
  if (options.resource && !config.multigroup) {
    const ownGroups = new Set(resources.filter((r) => !r.core && !r.external).map((r) => r.group));
    if (ownGroups.size > 0 && !ownGroups.has(group)) {
      throw new ScaffoldError(
        'multiple groups are not allowed by default; run `scaffold edit --multigroup` to enable them (see https://kubebuilder.io/migration/multi-group.html)',
      );
    }
  }
  if (!options.resource && !isBuiltIn && !isExternal && !existing?.api) {
    throw new ScaffoldError(
      `no API found for ${apiGroup}/${version}, Kind ${kind}: run \`scaffold create api\` with --resource first, or use a built-in group (apps, batch, core, networking, ...)`,
    );
  }
  // A built-in kind's descriptor is the runtime's (ConfigMaps, Deployments, ...) when it has one, typed with its
  // model; else the controller defines <Kind>Resource itself, typed with @kubernetes/client-node's model of the kind.
  const runtimeDescriptor = isBuiltIn ? runtimeDescriptorName(apiGroup, version, kind) : undefined;
  let builtInType: string | undefined;
  if (isBuiltIn && runtimeDescriptor === undefined) {
    builtInType = clientNodeModelName(version, kind);
    if (!clientNodeHasModel(builtInType)) {
      throw new ScaffoldError(
        `${builtIn || 'core'}/${version} ${kind} is not a Kubernetes built-in kind known to @kubernetes/client-node (no model ${builtInType}); check --group, --version and --kind`,
      );
    }
  }
  if (options.controller && !existsSync(join(root, 'cmd', 'main.ts'))) {
    throw new ScaffoldError(
      'cmd/main.ts file should be present in the root directory; restore it from `scaffold init`',
    );
  }

  const paths = resourcePaths(config, { group, version, kind }, controllerName);
  const external = isExternal ? resolveExternalAPI(root, options.externalApiPath!, kind, apiGroup) : undefined;
  const namespaced = isBuiltIn ? !isClusterScopedBuiltIn(kind) : (external?.namespaced ?? options.namespaced);
  const controllerDir = posix.dirname(paths.controllerFile);
  const header = projectFileHeader(root);
  const lowerCamel = kind.charAt(0).toLowerCase() + kind.slice(1);
  const data = {
    boilerplate: header,
    projectName: config.projectName,
    group,
    version,
    kind,
    plural,
    lowerKind: kind.toLowerCase(),
    lowerCamelKind: reservedWords.has(lowerCamel) ? `${lowerCamel}Object` : lowerCamel,
    qualifiedGroup: apiGroup,
    apiVersion: apiGroup ? `${apiGroup}/${version}` : version,
    namespaced,
    // kubebuilder's +kubebuilder:resource marker: the plural when it is not the regular one (else the CRD would be
    // served under the regular plural while RBAC and PROJECT name the given one), and the scope when cluster-wide.
    resourceMarker: [plural !== defaultPlural ? `path=${plural}` : '', namespaced ? '' : 'scope=Cluster']
      .filter(Boolean)
      .join(','),
    builtIn: isBuiltIn,
    builtInType,
    runtimeDescriptor,
    localDescriptor: isBuiltIn && runtimeDescriptor === undefined,
    // the descriptor's name in the controller's code
    descriptor: runtimeDescriptor ?? `${kind}Resource`,
    external: isExternal,
    // imported types declare `metadata?: ObjectMeta`, as client-node's do
    optionalMetadata: isBuiltIn || isExternal,
    // the project's own CRD is in config/crd/bases: the controller's tests can create an object of the Kind
    ownCRD: !isBuiltIn && !isExternal,
    descriptorGroup: apiGroup,
    rbacGroup: apiGroup === '' ? 'core' : apiGroup,
    rbacNamespace: config.namespaced ? `,namespace=${config.projectName}-system` : '',
    apiImport: external ? external.importFrom(controllerDir) : paths.apiImportFromController,
    typesImport: paths.apiImportFromController.replace(
      /zz_generated\.resources\.js$/,
      `${kind.toLowerCase()}_types.js`,
    ),
    controllerName: paths.controllerName,
    reconcilerName: paths.reconcilerClass,
    controllerFileBase: paths.controllerFileBase,
    sampleFile: paths.sampleFile,
    testNamespace: namespaced ? 'default' : '',
    roleKind: config.namespaced ? 'Role' : 'ClusterRole',
    // The project's own Kind, opted in to server-side apply now or when its API was created.
    ssa: !isBuiltIn && !isExternal && Boolean(options.ssa || existing?.api?.ssa),
    ...extension.data,
  };
  const templates = {
    types: 'api/api/types.ts',
    sample: 'api/config/samples/sample.yaml',
    controller: 'api/controller/controller.ts',
    controllerTest: 'api/controller/controller.test.ts',
    controllerFakeTest: 'api/controller/controller.fake.test.ts' as string | null,
    ...extension.templates,
  };

  const plan = new Plan(root);
  const overwriteIfForced = options.force ? 'overwrite' : 'error';
  const entry: ProjectResource = existing ? { ...existing } : { group, version, kind, domain: domain || undefined };
  if (plural !== defaultPlural) entry.plural = plural;

  if (options.resource) {
    entry.api = { crdVersion: 'v1', namespaced, ...(options.ssa ? { ssa: true } : {}) };
    entry.path = paths.apiDir;
    plan.template(paths.groupVersionFile, render('api/api/groupversion_info.ts', data), 'skip');
    plan.template(paths.typesFile, render(templates.types, data), overwriteIfForced);
    plan.template(paths.sampleFile, render(templates.sample, data), overwriteIfForced);
    plan.template('config/samples/kustomization.yaml', render('api/config/samples/kustomization.yaml', data), 'skip');
    plan.insert('config/samples/kustomization.yaml', {
      manifestskustomizesamples: [`- ${posix.basename(paths.sampleFile)}`],
    });
    plan.template('config/crd/kustomization.yaml', render('api/config/crd/kustomization.yaml', data), 'skip');
    plan.template('config/crd/kustomizeconfig.yaml', render('api/config/crd/kustomizeconfig.yaml', data), 'skip');
    plan.insert('config/crd/kustomization.yaml', { crdkustomizeresource: [`- bases/${apiGroup}_${plural}.yaml`] });
    for (const role of ['admin', 'editor', 'viewer']) {
      plan.template(
        paths.roleFile(role),
        render(`api/config/rbac/${role}_role.yaml`, {
          ...data,
          rolePrefix: paths.roleName(role).replace(`-${role}-role`, ''),
        }),
        'overwrite',
      );
    }
    plan.edit('config/rbac/kustomization.yaml', (content) =>
      addRoleHelpers(
        content,
        ['admin', 'editor', 'viewer'].map((r) => posix.basename(paths.roleFile(r))),
      ),
    );
    plan.edit('config/default/kustomization.yaml', (content) => content.replace(/^#- \.\.\/crd$/m, '- ../crd'), {
      ifMissing: 'ignore',
    });
  }
  if (options.controller) {
    if (controllerName === undefined) entry.controller = true;
    else {
      // The first named controller turns a legacy `controller: true` into the list, as kubebuilder does.
      entry.controllers = [...controllerNames(entry).map((name) => ({ name })), { name: controllerName }];
      delete entry.controller;
    }
    if (isBuiltIn) {
      entry.core = true;
      entry.path = '@kubernetes/client-node';
    }
    if (external) {
      entry.external = true;
      entry.path = external.path;
    }
    plan.template(paths.controllerFile, render(templates.controller, data), overwriteIfForced);
    // The controller test uses the control plane test/envtest.setup.ts starts for the run; a project made before it
    // existed gets it here.
    planSharedTestEnvironment(plan, header);
    plan.template(
      paths.controllerTestFile,
      render(templates.controllerTest, data),
      options.force ? 'overwrite' : 'skip',
    );
    if (templates.controllerFakeTest !== null) {
      plan.template(
        paths.controllerFakeTestFile,
        render(templates.controllerFakeTest, data),
        options.force ? 'overwrite' : 'skip',
      );
    }
    const args = extension.reconcilerArgs ?? 'mgr.getClient()';
    const wiring = controllerWiring(
      config,
      {
        resource: entry,
        controllerName: paths.controllerName,
        reconcilerClass: paths.reconcilerClass,
        controllerImport: paths.mainImport,
        resourceImport: isBuiltIn
          ? paths.mainImport
          : external
            ? external.importFrom('cmd')
            : `${posix.relative('cmd', paths.apiDir)}/zz_generated.resources.js`,
      },
      args,
    );
    plan.insert('cmd/main.ts', { imports: wiring.imports, builder: wiring.builder });
  }

  const nextResources = existing ? resources.map((r) => (r === existing ? entry : r)) : [...resources, entry];
  const recorded: ProjectConfig = { ...config, resources: nextResources };
  const nextConfig = extension.project ? extension.project(recorded) : recorded;
  if (options.resource) {
    // The descriptors of every Kind in this version folder, regenerated together (`scaffold generate` does the same from markers).
    const inFolder = nextResources
      .filter((r) => r.api && r.path === paths.apiDir)
      .sort((a, b) => a.kind.localeCompare(b.kind));
    const descriptors = inFolder.map((r) => ({
      kind: r.kind,
      lowerKind: r.kind.toLowerCase(),
      plural: r.plural ?? pluralize(r.kind.toLowerCase()),
      qualifiedGroup: qualifiedGroup(r.group, r.domain),
      version: r.version,
      namespaced: Boolean(r.api?.namespaced),
    }));
    plan.template(
      paths.resourcesFile,
      render('api/api/zz_generated.resources.ts', { boilerplate: header, resources: descriptors }),
      'overwrite',
    );
  }
  extension.plan?.(plan, { paths, data });
  plan.template('PROJECT', stringifyProject(nextConfig), 'overwrite');
  return { written: plan.commit() };
}

/** Refuses a --controller-name that is invalid or taken, with kubebuilder's reasons. */
function checkNewControllerName(
  name: string,
  options: CreateAPIOptions,
  existing: ProjectResource | undefined,
  apiGroup: string,
): void {
  if (!options.controller)
    throw new ScaffoldError('--controller-name names a controller to scaffold: drop --controller=false, or the name');
  const problem = checkControllerName(name);
  if (problem) throw new ScaffoldError(`${problem}; use a lowercase name such as ${options.kind.toLowerCase()}-backup`);
  const gvk = `${apiGroup}/${options.version}, Kind=${options.kind}`;
  const taken = existing ? controllerNames(existing) : [];
  if (taken.includes(name))
    throw new ScaffoldError(
      `controller with name "${name}" already exists for ${gvk}; choose another --controller-name`,
    );
  const clash = taken.find((t) => normalizedControllerName(t) === normalizedControllerName(name));
  if (clash !== undefined)
    throw new ScaffoldError(
      `controller name "${name}" conflicts with existing controller "${clash}" of ${gvk}: both normalize to "${normalizedControllerName(name)}"; choose another --controller-name`,
    );
}

const roleHelpersComment = `# For each CRD, "Admin", "Editor" and "Viewer" roles are scaffolded by
# default, aiding admins in cluster management. Those roles are
# not used by the project itself. You can comment the following lines
# if you do not want those helpers be installed with your Project.`;

/** Lists the role helper files in config/rbac/kustomization.yaml, below the helpers comment (kubebuilder's order). */
function addRoleHelpers(content: string, files: string[]): string {
  let next = content.endsWith('\n') ? content : `${content}\n`;
  if (!next.includes(roleHelpersComment)) next += `${roleHelpersComment}\n`;
  const missing = files.filter((file) => !next.split('\n').some((line) => line.trim() === `- ${file}`));
  if (missing.length === 0) return next;
  return next.replace(roleHelpersComment, `${roleHelpersComment}\n${missing.map((file) => `- ${file}`).join('\n')}`);
}
