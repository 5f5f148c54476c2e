import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ScaffoldError } from '../../../errors.js';
import { firstInvalidByte } from '../../../files/utf8.js';
import { Plan } from '../../plan.js';

// The universe: the project's files, path to content, sent to an external plugin and written back from its answer.
// kubebuilder sends every file below the project; a TypeScript project also holds node_modules and build output,
// which no scaffold reads and which would make every request hundreds of megabytes, so those stay out.

/** Folders never sent, wherever they are: version control and installed packages. */
const SKIPPED_ANYWHERE = new Set(['.git', 'node_modules']);
/** Top-level folders of build output and tools that the scaffold's .gitignore names. */
const SKIPPED_AT_TOP = new Set(['dist', 'bundle', 'bin', 'coverage']);
/** Paths a plugin may not write: the folders never sent. */
const UNWRITABLE = SKIPPED_ANYWHERE;

/** The most the universe may hold, in bytes of file content. */
export const MAX_UNIVERSE_BYTES = 64 * 1024 * 1024;

/**
 * The project's text files, by project-relative path with '/' separators: every regular file that is valid UTF-8,
 * except under .git and node_modules (anywhere) and the top-level dist, bundle, bin and coverage folders. Symbolic
 * links are left out (a plugin sees a file once, under its real path). Throws when the files come to more than
 * MAX_UNIVERSE_BYTES.
 */
export function readUniverse(root: string): Record<string, string> {
  const universe: Record<string, string> = {};
  let total = 0;
  const walk = (dir: string, prefix: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
      if (entry.isDirectory()) {
        if (SKIPPED_ANYWHERE.has(entry.name) || (prefix === '' && SKIPPED_AT_TOP.has(entry.name))) continue;
        walk(join(dir, entry.name), path);
        continue;
      }
      if (!entry.isFile()) continue;
      const bytes = readFileSync(join(dir, entry.name));
      if (firstInvalidByte(bytes) < bytes.length) continue;
      total += bytes.length;
      if (total > MAX_UNIVERSE_BYTES)
        throw new ScaffoldError(
          `the project's files come to more than ${MAX_UNIVERSE_BYTES / 1024 / 1024} MiB (at ${path}), more than an external plugin request may hold; move large files out of the project`,
        );
      universe[path] = bytes.toString('utf8');
    }
  };
  walk(root, '');
  return universe;
}

/** What writing a plugin's answer did. */
export interface UniverseWrite {
  /** The files written (created or changed), project-relative. */
  written: string[];
  /** Things the user should know (a PROJECT change that was not kept). */
  warnings: string[];
}

/**
 * The files of a plugin's answer that differ from what is on disk, checked before anything is written: each path must
 * be relative, inside the project (links that leave it are refused by the Plan), outside .git and node_modules, and
 * each content well-formed Unicode. PROJECT is the CLI's: a change the plugin makes to it is not kept, as kubebuilder
 * does not keep it (it saves its own configuration after the plugins ran), and a warning says so. Writes all or nothing.
 */
export function writeUniverse(
  root: string,
  plugin: string,
  sent: Record<string, string>,
  answer: Record<string, string>,
): UniverseWrite {
  const problems: string[] = [];
  const warnings: string[] = [];
  const plan = new Plan(root);
  for (const [path, content] of Object.entries(answer).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const problem =
      pathProblem(path) ?? (hasLoneSurrogate(content) ? 'its content is not well-formed Unicode' : undefined);
    if (problem !== undefined) {
      problems.push(`${JSON.stringify(path)}: ${problem}`);
      continue;
    }
    if (sent[path] === content) continue;
    if (path === 'PROJECT') {
      warnings.push(
        `plugin ${plugin} changed PROJECT; the change is not kept (PROJECT is written by scaffold only, as kubebuilder writes it)`,
      );
      continue;
    }
    plan.template(path, content, 'overwrite');
  }
  if (problems.length > 0)
    throw new ScaffoldError(
      `plugin ${plugin} answered with files scaffold does not write:\n  ${problems.join('\n  ')}`,
    );
  try {
    return { written: plan.commit(), warnings };
  } catch (err) {
    if (err instanceof ScaffoldError)
      throw new ScaffoldError(`plugin ${plugin}'s files were not written: ${err.message}`, { cause: err });
    throw err;
  }
}

/** Why a path from a plugin's universe is not one to write, or undefined. */
function pathProblem(path: string): string | undefined {
  if (path === '') return 'the path is empty';
  if (hasLoneSurrogate(path) || path.includes('\0')) return 'the path holds characters a file name cannot';
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path) || path.includes('\\'))
    return "the path is not relative to the project (use '/'-separated paths such as config/samples/x.yaml)";
  const parts = path.split('/');
  if (parts.some((p) => p === '..')) return "the path leads out of the project ('..')";
  if (parts.some((p) => p === '' || p === '.')) return "the path is not in normal form (no '.', no empty parts)";
  const top = parts.find((p) => UNWRITABLE.has(p));
  if (top !== undefined) return `scaffold does not let plugins write into ${top}/`;
  return undefined;
}

/** Whether `text` holds a UTF-16 surrogate without its pair, which JSON can carry but no file can hold. */
function hasLoneSurrogate(text: string): boolean {
  return /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);
}
