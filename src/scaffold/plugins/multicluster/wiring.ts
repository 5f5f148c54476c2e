// How a controller is wired into cmd/main.ts once the project is multi-cluster: a chain of the multi-cluster builder
// that gives each engaged cluster its own reconciler, made with that cluster's client. Shared by the plugin (which
// rewrites the wiring main.ts has) and by `create api` in a project the plugin was run on.
import type { ProjectResource } from '../../../project/project.js';

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
