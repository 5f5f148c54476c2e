import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ScaffoldError } from '../errors.js';
import { resolveInProject } from '../files/confine.js';
import { readUtf8File } from '../files/utf8.js';
import { fileHeader } from './boilerplate.js';
import { parseProject, type ProjectConfig } from './project.js';

/** The files whose presence marks an initialized project (kubebuilder's checkDir, with cmd/main.ts for cmd/main.go). */
export const initializedMarkers = ['PROJECT', 'Makefile', 'cmd/main.ts'] as const;

/** Loads PROJECT from root, or fails with what to do. */
export function loadProject(root: string): ProjectConfig {
  const path = join(root, 'PROJECT');
  if (!existsSync(path)) {
    throw new ScaffoldError(
      `no PROJECT file in ${root}; run this command in a project created by \`scaffold init\`, or run \`scaffold init --domain <domain>\` first`,
    );
  }
  const result = parseProject(readUtf8File(path));
  if (typeof result === 'string') throw new ScaffoldError(`${path}: ${result}`);
  return result;
}

/** The header for generated .ts files, from the project's hack/boilerplate.txt (none when it is absent or empty). */
export function projectFileHeader(root: string): string {
  const path = resolveInProject(root, join('hack', 'boilerplate.txt'), 'read');
  return existsSync(path) ? fileHeader(readUtf8File(path, join('hack', 'boilerplate.txt'))) : '';
}
