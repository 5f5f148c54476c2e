/**
 * What `create api --external-api-path` refers to: a Kind another project defines. In Go it is an import path; here
 * it is either a folder of the project holding imported types (what `scaffold import crd` writes: a
 * zz_generated.resources.ts that exports `<Kind>Resource`), or a package (an import specifier) that exports it.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, posix, relative } from 'node:path';
import { ScaffoldError } from '../errors.js';
import { resolveInProject } from '../files/confine.js';
import { decodeUtf8 } from '../files/utf8.js';

/** Where the controller imports `<Kind>Resource` from, and what PROJECT records as the resource's path. */
export interface ExternalAPI {
  /** PROJECT's path: the project-relative folder, or the package specifier as given. */
  path: string;
  /** Whether it is a folder of the project (else a package). */
  inProject: boolean;
  /** The import specifier, from the controller's folder. */
  importFrom(fromDir: string): string;
  /** The Kind's scope, when the descriptor says it. */
  namespaced?: boolean;
}

const RESOURCES_FILE = 'zz_generated.resources.ts';

const looksLikePath = (p: string): boolean => p.startsWith('./') || p.startsWith('../') || isAbsolute(p) || p === '.';

/**
 * Resolves --external-api-path for `kind` of `qualifiedGroup`; a folder must hold the Kind's descriptor, and its
 * +groupName (when it has one) must be that group. Throws ScaffoldError saying what to pass instead.
 */
export function resolveExternalAPI(root: string, path: string, kind: string, qualifiedGroup: string): ExternalAPI {
  if (path.trim() === '') throw new ScaffoldError('--external-api-path cannot be empty');
  const candidate = resolveInProject(root, path, 'read', looksLikePath(path) ? 'refuse' : 'allow');
  const isFolder = existsSync(candidate) && statSync(candidate).isDirectory();
  if (!isFolder) {
    if (looksLikePath(path))
      throw new ScaffoldError(
        `--external-api-path ${path} is not a folder of the project; import the CRD first (scaffold import crd, or --external-api-crd), or give the package that exports ${kind}Resource`,
      );
    // a package specifier, as the controller will import it
    return { path, inProject: false, importFrom: () => path };
  }
  const folder = relative(root, candidate).split(/[\\/]/).join('/');
  const resources = join(candidate, RESOURCES_FILE);
  if (!existsSync(resources))
    throw new ScaffoldError(
      `${folder} has no ${RESOURCES_FILE}; point --external-api-path at a group/version folder that \`scaffold import crd\` wrote`,
    );
  const text = decodeUtf8(readFileSync(resolveInProject(root, resources, 'read')), `${folder}/${RESOURCES_FILE}`);
  const block = new RegExp(`export const ${kind}Resource = defineResource<${kind}>\\(\\{([^}]*)\\}\\)`).exec(text);
  if (!block) {
    const found = [...text.matchAll(/export const (\w+)Resource\b/g)].map((m) => m[1]).join(', ');
    throw new ScaffoldError(
      `${folder}/${RESOURCES_FILE} does not describe a Kind ${kind} (it has ${found || 'none'}); check --kind, or import the CRD of ${kind}`,
    );
  }
  const group = /group: '([^']*)'/.exec(block[1]!)?.[1];
  if (group !== undefined && group !== qualifiedGroup)
    throw new ScaffoldError(
      `${folder} holds ${kind} of the group ${group}, not ${qualifiedGroup}; pass --group and --external-api-domain so that <group>.<domain> is ${group}`,
    );
  const namespaced = /namespaced: (true|false)/.exec(block[1]!)?.[1];
  return {
    path: folder,
    inProject: true,
    importFrom: (fromDir) => `${posix.relative(fromDir, folder)}/zz_generated.resources.js`,
    namespaced: namespaced === undefined ? undefined : namespaced === 'true',
  };
}
