// How cmd/main.ts wires a controller: with the manager (the reconciler's setupWithManager), or, once
// multicluster/v1-alpha was run on the project, with the multi-cluster builder, which gives each engaged cluster its
// own reconciler, made with that cluster's client. Shared by create api (which wires each controller it makes) and by
// the multicluster plugin (which rewrites the wiring main.ts has); the plugin's spec data says which PROJECT entry
// makes a project multi-cluster.
import { pluginConfig, type ProjectConfig, type ProjectResource } from '../project/project.js';
import { MULTICLUSTER_PLUGIN_KEY } from './plugins/multicluster/spec.js';

/** The import of the multi-cluster runtime in cmd/main.ts. */
export const MULTICLUSTER_IMPORT =
  "import { KubeconfigSecretProvider, MultiClusterManager, newMultiClusterControllerManagedBy, perCluster } from '@kubescaffold/runtime/multicluster';";

/** One controller PROJECT records, as main.ts wires it. */
export interface WiredController {
  resource: ProjectResource;
  /** The name the manager knows it by (`.named()`). */
  controllerName: string;
  /** Its reconciler class. */
  reconcilerClass: string;
  /** Where main.ts imports the reconciler from. */
  controllerImport: string;
  /** Where main.ts imports `<Kind>Resource` from. */
  resourceImport: string;
}

/** What cmd/main.ts gains for one controller: import lines, and the statement that wires it. */
export interface ControllerWiring {
  imports: string[];
  builder: string[];
}

/**
 * How main.ts wires controller `c` in the project PROJECT describes, its reconciler made with `args` (written for the
 * manager's client, mgr.getClient()): per cluster in a project multicluster/v1-alpha was run on, else with the manager.
 */
export function controllerWiring(config: ProjectConfig, c: WiredController, args: string): ControllerWiring {
  if (pluginConfig(config, MULTICLUSTER_PLUGIN_KEY) !== undefined) {
    // Each engaged cluster gets a reconciler of its own, made with that cluster's client.
    return {
      imports: multiClusterImports(c),
      builder: [multiClusterChain(c, args.replaceAll('mgr.getClient()', 'cluster.getClient()'))],
    };
  }
  return {
    imports: [`import { ${c.reconcilerClass} } from '${c.controllerImport}';`],
    builder: [`new ${c.reconcilerClass}(${args}).setupWithManager(mgr);`],
  };
}

/** The builder chain of one controller, indented by `indent`; the reconciler is made with `args`. */
export function multiClusterChain(c: WiredController, args: string, indent = ''): string {
  return [
    `${indent}newMultiClusterControllerManagedBy(mcmgr)`,
    `${indent}  .for(${c.resource.kind}Resource)`,
    `${indent}  .named('${c.controllerName}')`,
    `${indent}  .complete(perCluster((cluster) => new ${c.reconcilerClass}(${args})));`,
  ].join('\n');
}

/** The import lines main.ts needs for `c` in a multi-cluster project: its reconciler and its Kind's descriptor. */
export function multiClusterImports(c: WiredController): string[] {
  if (c.resourceImport === c.controllerImport)
    return [`import { ${c.reconcilerClass}, ${c.resource.kind}Resource } from '${c.controllerImport}';`];
  return [
    `import { ${c.reconcilerClass} } from '${c.controllerImport}';`,
    `import { ${c.resource.kind}Resource } from '${c.resourceImport}';`,
  ];
}
