/**
 * `scaffold manifests`: reads the project's sources once, validates everything, and only then returns the files
 * to write (CRDs, RBAC roles, webhook configurations). Nothing here touches the disk except reading sources.
 */
import { join } from 'node:path';
import { buildCRDs, findKinds, groupVersionOf, type CRDCache, type GroupVersion, type KindInfo } from '../crd/crd.js';
import { SchemaGenerator } from '../crd/schema.js';
import { CheckedSchemas, checkStructural } from '../crd/structural.js';
import type { CustomResourceDefinition } from '../markers/apiextensions.js';
import type { Marker } from '../markers/collector.js';
import { DiagnosticBag, DiagnosticsError } from '../diagnostics.js';
import { UserError } from '../errors.js';
import { expandPaths, SourceProgram, type Package } from '../markers/program.js';
import { generateRoles } from '../rbac/index.js';
import { generateWebhookConfigurations } from '../webhookgen/index.js';
import { toYamlFile } from '../yaml/index.js';

/** The options of `scaffold manifests` (and of controller-gen's rbac/crd/webhook generators it replaces). */
export interface ManifestsOptions {
  /** The project root (where PROJECT is); relative paths below are relative to it. */
  root: string;
  /** Go-style package patterns: `./...` (default), `./api/...`, `./internal/controller`. */
  paths?: readonly string[];
  crdDir?: string;
  /** Where the role is written (controller-gen's output:rbac:artifacts:config); default config/rbac. */
  rbacDir?: string;
  /** The role's file name (controller-gen's rbac:fileName); default role.yaml. */
  rbacFileName?: string;
  webhookDir?: string;
  roleName?: string;
  maxDescLen?: number;
  allowDangerousTypes?: boolean;
  /** Recorded in the CRDs' kubescaffold.io/version annotation. */
  generatorVersion: string;
}

/** A manifest to write: where, and the YAML it holds. */
export interface OutputFile {
  /** Absolute path. */
  path: string;
  content: string;
}

/** What planManifests returns: the files to write and the CRDs they were rendered from. */
export interface ManifestsResult {
  files: OutputFile[];
  crds: CustomResourceDefinition[];
}

/**
 * Everything `scaffold manifests` would write; throws DiagnosticsError (and returns nothing) on any problem. With a
 * `cache` from an earlier run on the same program, only CRDs whose sources changed are built again.
 */
export function planManifests(
  opts: ManifestsOptions,
  program = new SourceProgram(opts.root),
  cache?: CRDCache,
): ManifestsResult {
  const rbacFileName = opts.rbacFileName ?? 'role.yaml';
  const fileNameProblem = plainFileNameProblem(rbacFileName);
  if (fileNameProblem) throw new UserError(`--rbac-file-name "${rbacFileName}" ${fileNameProblem}`);
  const diags = new DiagnosticBag();
  cache?.newRun();
  const packages = expandPaths(opts.root, opts.paths ?? ['./...']).map((dir) => program.loadPackage(dir));
  const gvs = packages.map(groupVersionOf).filter((gv): gv is GroupVersion => gv !== undefined);
  const kinds: KindInfo[] = findKinds(program, gvs, diags);
  const gen = new SchemaGenerator(program, diags, { allowDangerousTypes: opts.allowDangerousTypes ?? false });
  const crds = buildCRDs(kinds, gen, diags, {
    generatorVersion: opts.generatorVersion,
    maxDescLen: opts.maxDescLen,
    cache,
  });
  for (const f of program.loadedFiles()) diags.items.push(...f.diagnostics.items);
  // Structural problems follow from the errors above; report them only for otherwise valid schemas.
  if (diags.empty) {
    const checked = new CheckedSchemas(); // shared schemas are checked once
    for (const crd of crds) if (!cache?.rendered.has(crd)) checkStructural(crd, kinds, diags, gen.origins, checked);
  }
  const packageMarkers: Marker[] = packages.flatMap((p: Package) => p.markers.list);
  const roles = generateRoles(packageMarkers, opts.roleName ?? 'manager-role');
  const webhooks = generateWebhookConfigurations(packageMarkers, diags);
  if (!diags.empty) throw new DiagnosticsError(diags.items, opts.root);

  const files: OutputFile[] = [];
  const crdDir = join(opts.root, opts.crdDir ?? 'config/crd/bases');
  for (const crd of crds) {
    let content = cache?.rendered.get(crd);
    if (content === undefined) {
      // named-type schemas are shared between CRDs and runs, and never change once built
      content = toYamlFile([crd], '', { replaySharedObjects: true });
      cache?.rendered.set(crd, content);
    }
    files.push({ path: join(crdDir, `${crd.spec.group}_${crd.spec.names.plural}.yaml`), content });
  }
  if (roles.length > 0)
    files.push({ path: join(opts.root, opts.rbacDir ?? 'config/rbac', rbacFileName), content: toYamlFile(roles) });
  if (webhooks.length > 0)
    files.push({
      path: join(opts.root, opts.webhookDir ?? 'config/webhook', 'manifests.yaml'),
      content: toYamlFile(webhooks),
    });
  return { files, crds };
}

/** What keeps `name` from being a file name in the output folder (a path would place the file elsewhere), or undefined. */
export function plainFileNameProblem(name: string): string | undefined {
  if (name === '' || name === '.' || name === '..' || /[/\\]/.test(name))
    return 'must be a file name, without a folder: give the folder with --rbac-dir';
  return undefined;
}
