/**
 * Every file the CLI writes into a project, and every marker source it reads, must lie in the project once symbolic
 * links are followed: a cloned repository could otherwise link config/crd/bases/x.yaml or a types file to any file
 * the user can write or read, and `make manifests` would overwrite or publish it. Links that stay in the project
 * are followed.
 */
import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { UserError } from '../errors.js';

/** What the caller does with the path, for the message. */
export type Access = 'write' | 'read';

/** A path that leads out of the project, directly or through a symbolic link; nothing was written. */
export class OutsideProjectError extends UserError {
  constructor(
    message: string,
    /** The path as the command meant it, relative to the project. */
    readonly path: string,
    /** The link that leads out, relative to the project (undefined when the path itself is outside). */
    readonly link: string | undefined,
    /** Where it leads. */
    readonly target: string,
  ) {
    super(message);
    this.name = 'OutsideProjectError';
  }
}

// ELOOP's bound on links followed in one path, as Linux has it
const MAX_LINKS = 40;

const isInside = (root: string, path: string): boolean =>
  path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);

/**
 * The real path that `path` (absolute, or relative to `root`) leads to, following symbolic links that stay in the
 * project; throws OutsideProjectError naming the first link that leaves it, or the path when it lies outside (unless
 * `outside` is 'allow', for a path the user typed: it is then returned as it is). Missing files and folders are fine:
 * they would be created in the project.
 */
export function resolveInProject(
  root: string,
  path: string,
  access: Access,
  outside: 'refuse' | 'allow' = 'refuse',
): string {
  const rootReal = realOrResolved(root);
  const wanted = resolve(root, path);
  const shown = displayed(root, rootReal, wanted);
  // a path given already resolved (the project's real path) counts as inside too
  let rel = isInside(resolve(root), wanted)
    ? relative(resolve(root), wanted)
    : isInside(rootReal, wanted)
      ? relative(rootReal, wanted)
      : undefined;
  if (rel === undefined) {
    if (outside === 'allow') return wanted;
    throw new OutsideProjectError(
      `${wanted} is outside the project ${resolve(root)}; ${advice(access, false)}`,
      shown,
      undefined,
      wanted,
    );
  }
  let current = rootReal;
  let links = 0;
  const rest = rel === '' ? [] : rel.split(sep);
  while (rest.length > 0) {
    const next = join(current, rest.shift()!);
    let isLink: boolean;
    try {
      isLink = lstatSync(next).isSymbolicLink();
    } catch {
      return join(next, ...rest); // missing: created below `current`, which is in the project
    }
    if (!isLink) {
      current = next;
      continue;
    }
    if (++links > MAX_LINKS)
      throw new OutsideProjectError(
        `${shown}: too many levels of symbolic links`,
        shown,
        relative(rootReal, next),
        next,
      );
    const target = linkTarget(next, rootReal);
    if (!isInside(rootReal, target)) {
      const link = relative(rootReal, next);
      throw new OutsideProjectError(
        `${link} is a symbolic link to ${target}, outside the project; ${advice(access, true)}`,
        shown,
        link,
        target,
      );
    }
    // go on from the target, whose own components may be links too (checked as the walk reaches them)
    rel = relative(rootReal, target);
    current = rootReal;
    rest.unshift(...(rel === '' ? [] : rel.split(sep)));
  }
  return current;
}

/** A folder's real path; as given when it does not exist yet (a project about to be created holds no links). */
function realOrResolved(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/**
 * Where a link leads, one step: its text resolved against its folder, so a chain is checked link by link (the walk
 * goes on through the target's components). A target outside that comes back in through links outside counts as in.
 */
function linkTarget(link: string, rootReal: string): string {
  const text = readlinkSync(link);
  const target = isAbsolute(text) ? resolve(text) : resolve(dirname(link), text);
  if (isInside(rootReal, target)) return target;
  try {
    return realpathSync(target);
  } catch {
    return target;
  }
}

function displayed(root: string, rootReal: string, path: string): string {
  for (const base of [resolve(root), rootReal]) if (isInside(base, path)) return relative(base, path) || '.';
  return path;
}

function advice(access: Access, link: boolean): string {
  if (access === 'write') {
    return link
      ? 'scaffold does not write through links that leave the project (a cloned repository could aim them at any file of yours); replace the link with a regular file or folder, or remove it, and run the command again'
      : 'scaffold writes only inside the project; choose a path inside it';
  }
  return link
    ? 'scaffold does not read sources through links that leave the project; copy the file into the project (or make the link point inside it) and run the command again'
    : 'scaffold reads sources only inside the project; move the file into the project, or import the type from a package';
}
