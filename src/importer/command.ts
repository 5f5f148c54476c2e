/**
 * `scaffold import crd`: reads the CRDs of every source, turns them into TypeScript types with markers, and writes
 * them (all or nothing) under the output folder of the project, one folder per group and version. An existing file
 * with other content is never overwritten without --force.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { OutsideProjectError, resolveInProject } from '../files/confine.js';
import { fileHeader } from '../project/boilerplate.js';
import { runtimeModuleOf } from '../project/runtime-module.js';
import { Plan } from '../scaffold/plan.js';
import { crdsToTypes, type GroupVersionTypes, type LocatedProblem, type SourcedCRD } from './crd-to-types.js';
import { ScaffoldError } from '../errors.js';
import { renderGroupVersion, renderPackageJson, type RenderedFile } from './render.js';
import { readSources, type ClusterAccess } from './sources.js';
import { verifyRoundTrip } from './verify.js';

/** The folder `scaffold import crd` writes to by default, relative to the project. */
export const DEFAULT_OUTPUT_DIR = 'external';

/** The options of `scaffold import crd`. */
export interface ImportOptions {
  /** The project root: every file written lies in it. */
  root: string;
  sources: readonly string[];
  /** Relative to root; defaults to DEFAULT_OUTPUT_DIR. */
  outputDir?: string;
  force?: boolean;
  cluster?: ClusterAccess;
  /** The license header; defaults to the project's hack/boilerplate.txt. */
  boilerplate?: string;
  /**
   * Write the types even when some of the CRDs cannot be said exactly (the problems are then warnings); without it,
   * any such problem is an error and nothing is written.
   */
  lossy?: boolean;
}

/** What an import wrote, the Kinds it found, and what it could not write exactly. */
export interface ImportResult {
  written: string[];
  groupVersions: GroupVersionTypes[];
  /** The output folder, relative to the project. */
  outputDir: string;
  problems: LocatedProblem[];
}

/**
 * Plans the files of CRDs already read, and checks that `scaffold manifests` gives every CRD back from them; nothing
 * is written.
 */
async function renderImport(
  crds: readonly SourcedCRD[],
  opts: { header: string; runtimeModule: string; packageName: string },
): Promise<{ files: RenderedFile[]; groupVersions: GroupVersionTypes[]; problems: ImportResult['problems'] }> {
  const { groupVersions, problems } = crdsToTypes(crds);
  const files = [renderPackageJson(opts.packageName), ...groupVersions.flatMap((gv) => renderGroupVersion(gv, opts))];
  // a path already reported (or one inside it) is not reported again
  const reported = problems.map((p) => ({ origin: p.origin, path: JSON.stringify(p.docPath).slice(0, -1) }));
  const unseen = (await verifyRoundTrip(crds, files)).filter(
    (v) =>
      !reported.some((r) => {
        const path = JSON.stringify(v.docPath);
        return r.origin === v.origin && (path === `${r.path}]` || path.startsWith(`${r.path},`));
      }),
  );
  return { files, groupVersions, problems: [...problems, ...unseen] };
}

/** Runs `scaffold import crd`. */
export async function importCRDs(opts: ImportOptions): Promise<ImportResult> {
  const outputDir = opts.outputDir ?? DEFAULT_OUTPUT_DIR;
  // refuses an output folder outside the project before any source is read
  resolveInProject(opts.root, outputDir, 'write');
  const crds = await readSources(opts.root, opts.sources, opts.cluster ?? {});
  const boilerplate = opts.boilerplate ?? readBoilerplate(opts.root);
  const { files, groupVersions, problems } = await renderImport(crds, {
    header: fileHeader(boilerplate),
    runtimeModule: runtimeModuleOf(opts.root),
    packageName: `${projectName(opts.root)}-${outputDir.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}`.replace(/-+$/, ''),
  });
  if (problems.length > 0 && !opts.lossy)
    throw new ScaffoldError(
      [
        ...formatProblems(opts.root, problems),
        `${lostPaths(problems)} path(s) of the CRDs have no marker spelling (above, each with its reason); nothing was written. Pass --lossy (scaffold import crd --lossy) to write the types without them.`,
      ].join('\n'),
    );
  const plan = new Plan(opts.root);
  // as the user named it, relative to the project (the plan follows links in it, and refuses those that leave it)
  const outRel = relative(resolve(opts.root), resolve(opts.root, outputDir)) || '.';
  if (!opts.force) for (const gv of groupVersions) checkEarlierKinds(plan, opts.root, outRel, gv);
  for (const f of files) {
    const path = join(outRel, f.path);
    const existing = readInProject(opts.root, path);
    // a file that already holds this content is no conflict (importing again changes nothing)
    if (existing === f.content) continue;
    // the package.json is shared by every import into the folder: an existing one is kept
    if (f.path === 'package.json' && existing !== undefined) continue;
    plan.template(path, f.content, opts.force ? 'overwrite' : 'error');
  }
  const written = plan.commit();
  return { written, groupVersions, outputDir: outRel, problems };
}

/**
 * A group and version folder written by an earlier import for other Kinds: its descriptors file lists those Kinds,
 * which this import would drop. The CRDs of one group and version are imported together.
 */
function checkEarlierKinds(plan: Plan, root: string, outRel: string, gv: GroupVersionTypes): void {
  const text = readInProject(root, join(outRel, gv.group, gv.version, 'zz_generated.resources.ts'));
  if (text === undefined) return;
  const earlier = [...text.matchAll(/^export const (\w+)Resource = /gm)].map((m) => m[1]!);
  const now = new Set(gv.kinds.map((k) => k.kind));
  const dropped = earlier.filter((k) => !now.has(k));
  if (dropped.length > 0)
    plan.fail(
      `${join(outRel, gv.group, gv.version)} holds ${dropped.join(', ')} from an earlier import; import their CRDs together with these (scaffold import crd <all of them>), or pass --force to replace the folder's files`,
    );
}

/**
 * A project file's text, or undefined when it is missing or leads out of the project (the plan then refuses to write
 * it, naming the link).
 */
function readInProject(root: string, path: string): string | undefined {
  try {
    const real = resolveInProject(root, path, 'read');
    return existsSync(real) ? readFileSync(real, 'utf8') : undefined;
  } catch (err) {
    if (err instanceof OutsideProjectError) return undefined;
    throw err;
  }
}

function readBoilerplate(root: string): string | undefined {
  const path = resolveInProject(root, join('hack', 'boilerplate.txt'), 'read');
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function projectName(root: string): string {
  try {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name?: unknown };
    if (typeof pkg.name === 'string' && pkg.name !== '') return pkg.name.replace(/^@[^/]+\//, '');
  } catch {
    // no package.json: named after the folder
  }
  return 'project';
}

/** The problems, one line each: `file:line: where: what`. */
export function formatProblems(root: string, problems: readonly LocatedProblem[]): string[] {
  return problems.map((p) => {
    const origin = p.origin.startsWith('/') ? relative(root, p.origin) : p.origin;
    return `${origin}${p.line !== undefined ? `:${p.line}` : ''}: ${p.where}: ${p.message}`;
  });
}

/** How many paths of the CRDs the problems lose (two problems at one path lose it once). */
export function lostPaths(problems: readonly LocatedProblem[]): number {
  return new Set(problems.map((p) => `${p.origin}\0${JSON.stringify(p.docPath)}`)).size;
}
