/**
 * `scaffold generate`: api/<version>/zz_generated.resources.ts, the typed resource descriptors (group, version,
 * kind, plural, scope) that clients and controllers use, derived from the same markers as the CRDs so the two
 * never disagree.
 */
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { crdSkeleton, findKinds, groupKinds, groupVersionOf, type GroupVersion, type KindInfo } from '../crd/crd.js';
import { DiagnosticBag, DiagnosticsError } from '../diagnostics.js';
import { expandPaths, SourceProgram } from '../markers/program.js';
import { resolveInProject } from '../files/confine.js';
import { decodeUtf8 } from '../files/utf8.js';
import { fileHeader } from '../project/boilerplate.js';
import { runtimeModuleOf } from '../project/runtime-module.js';
import type { GeneratedFile } from './write.js';
import { renderResources, type Descriptor } from './resources-text.js';

/** The name of the generated descriptors file in each API version folder. */
export const RESOURCES_FILE = 'zz_generated.resources.ts';

/** The options of `scaffold generate`: the project root, the package patterns to read, and the license header. */
export interface GenerateOptions {
  root: string;
  paths?: readonly string[];
  /** The license header; defaults to the project's hack/boilerplate.txt. */
  boilerplate?: string;
  year?: number;
}

/** The resources files to write, one per API folder with Kinds; throws DiagnosticsError on any problem. */
export function planResources(opts: GenerateOptions, program = new SourceProgram(opts.root)): GeneratedFile[] {
  const diags = new DiagnosticBag();
  const packages = expandPaths(opts.root, opts.paths ?? ['./...']).map((dir) => program.loadPackage(dir));
  const gvs = packages.map(groupVersionOf).filter((gv): gv is GroupVersion => gv !== undefined);
  const all = findKinds(program, gvs, diags);
  const kindsByGv = new Map<GroupVersion, KindInfo[]>(gvs.map((gv) => [gv, all.filter((k) => k.gv === gv)]));
  // Names and scope come from the CRD assembly, so they follow the same rules (+kubebuilder:resource, flect plurals).
  const crds = groupKinds([...kindsByGv.values()].flat()).map((group) => crdSkeleton(group, diags, ''));
  for (const f of program.loadedFiles()) diags.items.push(...f.diagnostics.items);
  if (!diags.empty) throw new DiagnosticsError(diags.items, opts.root);

  const boilerplate = opts.boilerplate ?? readBoilerplate(opts.root);
  const runtimeModule = runtimeModuleOf(opts.root);
  const files: GeneratedFile[] = [];
  for (const [gv, kinds] of kindsByGv) {
    if (kinds.length === 0) continue;
    const descriptors = kinds
      .map((k): Descriptor => {
        const crd = crds.find((c) => c.spec.group === gv.group && c.spec.names.kind === k.decl.name);
        return {
          kind: k.decl.name,
          group: gv.group,
          version: gv.version,
          plural: crd?.spec.names.plural ?? k.decl.name.toLowerCase(),
          namespaced: (crd?.spec.scope ?? 'Namespaced') !== 'Cluster',
          module: `./${basename(k.decl.file.path).replace(/\.ts$/, '.js')}`,
        };
      })
      .sort((a, b) => (a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : 0));
    files.push({
      path: join(gv.pkg.dir, RESOURCES_FILE),
      content: renderResources(descriptors, fileHeader(boilerplate, opts.year), runtimeModule),
    });
  }
  return files;
}

/** hack/boilerplate.txt, which goes into every generated file: only from inside the project, and as UTF-8. */
function readBoilerplate(root: string): string | undefined {
  const path = resolveInProject(root, join('hack', 'boilerplate.txt'), 'read');
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch {
    return undefined;
  }
  return decodeUtf8(bytes, join('hack', 'boilerplate.txt'));
}
