import { loadProject } from '../../../project/load.js';
import { stringifyProject, withPluginConfig, type ProjectConfig } from '../../../project/project.js';
import { ScaffoldError } from '../../../errors.js';
import { Plan } from '../../plan.js';
import { render } from '../../render.js';
import type { PluginModule, PluginResult } from '../plugin.js';
import { MULTICLUSTER_PLUGIN_KEY } from './spec.js';
import { existsSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';
import { controllerNames, reconcilerClassName } from '../../../project/controllers.js';
import type { ProjectResource } from '../../../project/project.js';
import { resourcePaths } from '../../api.js';
import {
  MULTICLUSTER_IMPORT,
  multiClusterChain,
  multiClusterImports,
  type WiredController,
} from '../../controller-wiring.js';

const MAIN = 'cmd/main.ts';
const RBAC_KUSTOMIZATION = 'config/rbac/kustomization.yaml';
const ROLE = 'kubeconfig_secret_reader_role.yaml';
const ROLE_BINDING = 'kubeconfig_secret_reader_role_binding.yaml';

const FLAG = `    'kubeconfig-secret-namespace': { type: 'string', default: '', usage: "The namespace of the kubeconfig Secrets (labelled sigs.k8s.io/multicluster-runtime-kubeconfig=true, the kubeconfig under data.kubeconfig), one Secret per cluster to reconcile in (default: the pod's own namespace, in a cluster)." },
    'cluster-health-interval': { type: 'duration', default: 10_000, usage: 'How often each cluster is asked for /readyz; 0 turns the checks off.' },
    'cluster-health-timeout': { type: 'duration', default: 5_000, usage: 'How long one check of a cluster waits for its answer.' },
    'cluster-unreachable-grace-period': { type: 'duration', default: 60_000, usage: "How long a cluster may go unanswered before its controllers stop and their queues are dropped; they start again once it answers." },`;

const NAMESPACE_BLOCK = `// multicluster/v1-alpha: the kubeconfig Secrets are in --kubeconfig-secret-namespace, else in the pod's own namespace
// (from its service account). Out of a cluster there is none: the manager says which flag to pass and exits 1.
let kubeconfigSecretNamespace: string;
try {
  kubeconfigSecretNamespace = leaderElectionNamespace(flags['kubeconfig-secret-namespace'] || undefined);
} catch {
  setupLog.error(new Error("not running in a cluster, where the pod's own namespace is used: pass --kubeconfig-secret-namespace=<namespace>, e.g. --kubeconfig-secret-namespace=default"), 'unable to find the namespace of the kubeconfig Secrets');
  process.exit(1);
}

`;

/** The block that makes the multi-cluster manager, after the Manager's; `cache` is what each cluster caches. */
function managerBlock(cache: string | undefined): string {
  return `
// multicluster/v1-alpha: the controllers reconcile in every cluster whose kubeconfig is in a Secret of
// kubeconfigSecretNamespace labelled sigs.k8s.io/multicluster-runtime-kubeconfig=true, one cluster per Secret, named
// after it: a Secret created engages its cluster while the manager runs, one deleted disengages it. Each cluster has
// its own cache, client and queues; one that stops answering holds no other back. mgr keeps running this cluster,
// where the controllers do not reconcile (give a chain engageWithLocalCluster: true in withOptions() for that).
const mcmgr = new MultiClusterManager(mgr, {
  provider: new KubeconfigSecretProvider({ namespace: kubeconfigSecretNamespace${cache ? `, clusterOptions: { cache: ${cache} }` : ''} }),
  health: {
    interval: flags['cluster-health-interval'],
    timeout: flags['cluster-health-timeout'],
    unreachableGracePeriod: flags['cluster-unreachable-grace-period'],
  },
});`;
}

/** Every controller PROJECT records, with what main.ts needs to wire it; `root` is the project's folder. */
export function wiredControllers(root: string, config: ProjectConfig): WiredController[] {
  return (config.resources ?? []).flatMap((r) =>
    controllerNames(r).map((n) => {
      const named = n === r.kind.toLowerCase() ? undefined : n;
      const paths = resourcePaths(config, r, named);
      return {
        resource: r,
        controllerName: paths.controllerName,
        reconcilerClass: reconcilerClassName(named, r.kind),
        controllerImport: paths.mainImport,
        resourceImport: resourceImportFromMain(root, r, paths),
      };
    }),
  );
}

/**
 * Where cmd/main.ts imports a Kind's descriptor from: the controller's module for a built-in Kind (it defines it),
 * an external API's folder of the project or its package, else the project's version folder's descriptors.
 */
function resourceImportFromMain(root: string, r: ProjectResource, paths: ReturnType<typeof resourcePaths>): string {
  if (r.core) return paths.mainImport;
  if (r.external && r.path) {
    // PROJECT records an external API of the project as its folder, and one of a package as the package's specifier.
    const folder = join(root, r.path);
    const inProject = existsSync(folder) && statSync(folder).isDirectory();
    return inProject ? `${posix.relative('cmd', r.path)}/zz_generated.resources.js` : r.path;
  }
  return `${posix.relative('cmd', paths.apiDir)}/zz_generated.resources.js`;
}

const SETUP_LINE = /^([ \t]*)new (\w+)\(([^;\n]*)\)\.setupWithManager\(mgr\);[ \t]*$/gm;

/**
 * cmd/main.ts made multi-cluster: the import, the --kubeconfig-secret-namespace flag and its namespace, the
 * --cluster-health-* flags, the
 * MultiClusterManager after the Manager, and each controller PROJECT records wired with the multi-cluster builder
 * instead of its setupWithManager. Throws ScaffoldError naming what main.ts lacks.
 */
export function multiClusterMain(
  main: string,
  root: string,
  config: ProjectConfig,
): { content: string; notes: string[] } {
  const notes: string[] = [];
  const missing = (what: string, fix: string): ScaffoldError =>
    new ScaffoldError(`${MAIN} has no ${what}, which multicluster/v1-alpha needs: ${fix}`);
  let next = main;

  const importsMarker = /^[ \t]*\/\/ \+kubebuilder:scaffold:imports[ \t]*$/m;
  if (!importsMarker.test(next))
    throw missing('"+kubebuilder:scaffold:imports" marker', 'add the marker comment back below the imports');
  const extraImports = [MULTICLUSTER_IMPORT];
  if (
    !/\bleaderElectionNamespace\b/.test(
      next
        .split('\n')
        .filter((l) => l.startsWith('import'))
        .join('\n'),
    )
  )
    extraImports.push("import { leaderElectionNamespace } from '@kubescaffold/runtime/manager';");

  const argv = /\n([ \t]*)\},\n([ \t]*)process\.argv\.slice\(2\),/.exec(next);
  if (!argv)
    throw missing(
      'parseFlagsOrExit({ ... }, process.argv.slice(2), ...) call',
      'restore the flags of your initial scaffold',
    );
  next = `${next.slice(0, argv.index)}\n${FLAG}${next.slice(argv.index)}`;

  const managerAt = next.indexOf('const mgr = new Manager({');
  if (managerAt < 0)
    throw missing('`const mgr = new Manager({ ... });`', 'restore the Manager of your initial scaffold');
  const managerEnd = next.indexOf('\n});', managerAt);
  if (managerEnd < 0)
    throw missing('end of `new Manager({ ... })` (a line `});`)', 'restore the Manager of your initial scaffold');
  const cache = /cache: \{ defaultNamespaces: watchNamespaces \}/.test(next.slice(managerAt, managerEnd))
    ? '{ defaultNamespaces: watchNamespaces }'
    : undefined;
  const afterManager = managerEnd + '\n});'.length;
  next = `${next.slice(0, managerAt)}${NAMESPACE_BLOCK}${next.slice(managerAt, afterManager)}\n${managerBlock(cache)}${next.slice(afterManager)}`;

  const controllers = wiredControllers(root, config);
  const imports = new Set<string>(extraImports);
  let unknown: string | undefined;
  next = next.replace(SETUP_LINE, (line, indent: string, cls: string, args: string) => {
    const c = controllers.find((w) => w.reconcilerClass === cls);
    if (!c) {
      unknown ??= line.trim();
      return line;
    }
    for (const i of multiClusterImports(c)) imports.add(i);
    const perCluster = args.replaceAll('mgr.getClient()', 'cluster.getClient()');
    if (/\bmgr\./.test(perCluster))
      notes.push(
        `${cls} is still made with ${perCluster.match(/\bmgr\.[\w.]+\([^)]*\)/g)?.join(', ')}: what it gets there is the manager's own cluster's (Events are recorded there), not the reconciled cluster's.`,
      );
    return multiClusterChain(c, perCluster, indent);
  });
  if (unknown !== undefined)
    throw new ScaffoldError(
      `${MAIN}: \`${unknown}\` wires a reconciler PROJECT records no controller for; wire it with newMultiClusterControllerManagedBy(mcmgr) by hand, or remove the line, and run the plugin again`,
    );
  // A reconciler's import line that also brings its Kind's descriptor replaces the one main.ts had.
  for (const c of controllers) {
    const both = multiClusterImports(c).find((i) => i.includes(`${c.reconcilerClass}, `));
    if (!both || !imports.has(both)) continue;
    next = next.replace(`import { ${c.reconcilerClass} } from '${c.controllerImport}';\n`, '');
  }
  const existingLines = new Set(next.split('\n').map((l) => l.trim()));
  const toAdd = [...imports].filter((i) => !existingLines.has(i.trim()));
  next = next.replace(importsMarker, (marker) => [...toAdd, marker].join('\n'));
  if (controllers.length > 0)
    notes.push(
      'cmd/main.ts now wires each controller with newMultiClusterControllerManagedBy(mcmgr) instead of calling its setupWithManager: if you added owns() or watches() there, add them to its chain in cmd/main.ts.',
    );
  return { content: next, notes };
}

/**
 * `edit --plugins=multicluster/v1-alpha`: cmd/main.ts made multi-cluster (once: a main.ts that already makes a
 * MultiClusterManager is left as it is), the Role and RoleBinding that let the manager read the kubeconfig Secrets of
 * its namespace, listed in config/rbac/kustomization.yaml, and the plugin recorded in PROJECT, so that `create api`
 * wires new controllers the same way. Validates everything before writing anything.
 */
export function editMultiCluster(root: string): PluginResult {
  const config = loadProject(root);
  const plan = new Plan(root);
  const notes: string[] = [];
  const main = plan.current(MAIN);
  if (main === undefined) throw new ScaffoldError(`${MAIN} does not exist; restore it from your initial scaffold`);
  if (main.includes('new MultiClusterManager(')) {
    notes.push(`${MAIN} already makes a MultiClusterManager; it was left as it is.`);
  } else {
    const rewritten = multiClusterMain(main, root, config);
    plan.template(MAIN, rewritten.content, 'overwrite');
    notes.push(...rewritten.notes);
  }
  const data = { projectName: config.projectName };
  plan.template(`config/rbac/${ROLE}`, render(`plugins/multicluster/${ROLE}`, data), 'skip');
  plan.template(`config/rbac/${ROLE_BINDING}`, render(`plugins/multicluster/${ROLE_BINDING}`, data), 'skip');
  plan.edit(RBAC_KUSTOMIZATION, (text) => {
    const lines = text.split('\n');
    const listed = (file: string): boolean => lines.some((l) => l.trim() === `- ${file}`);
    const add = [ROLE, ROLE_BINDING].filter((f) => !listed(f));
    if (add.length === 0) return text;
    const at = lines.findIndex((l) => l.trim() === '- leader_election_role_binding.yaml');
    const insertAt = at >= 0 ? at + 1 : lines.findIndex((l) => l.trim() === 'resources:') + 1;
    if (insertAt <= 0)
      throw new ScaffoldError(`${RBAC_KUSTOMIZATION} has no resources: list; restore it from your initial scaffold`);
    lines.splice(insertAt, 0, ...add.map((f) => `- ${f}`));
    return lines.join('\n');
  });
  const project = stringifyProject(withPluginConfig(config, MULTICLUSTER_PLUGIN_KEY, {}));
  if (project !== plan.current('PROJECT')) plan.template('PROJECT', project, 'overwrite');
  const written = plan.commit();
  notes.push(
    'Add a cluster: `kubectl create secret generic <cluster> -n <manager namespace> --from-file=kubeconfig=<file>` and label it `sigs.k8s.io/multicluster-runtime-kubeconfig=true` (docs/guides/multicluster.md).',
  );
  return { written, notes };
}

const plugin: PluginModule = { edit: (root) => editMultiCluster(root) };
export default plugin;
