import { readdir, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import type { AdminClient, Response } from './request.js';

const MANIFEST_EXTENSIONS = new Set(['.yaml', '.yml', '.json']);

/**
 * The manifest files a path names: the file itself, or a directory's own .yaml/.yml/.json files (not its
 * subdirectories), sorted. A missing path gives none when `ignoreMissing`, as in envtest; `what` names the files in
 * errors.
 */
export async function manifestFiles(path: string, ignoreMissing: boolean, what: string): Promise<string[]> {
  try {
    const st = await stat(path);
    if (!st.isDirectory()) return [path];
    return (await readdir(path))
      .filter((f) => MANIFEST_EXTENSIONS.has(extname(f).toLowerCase()))
      .sort()
      .map((f) => join(path, f));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' && ignoreMissing) return [];
    throw new Error(`reading ${what} from ${path}: ${(err as Error).message}`);
  }
}

interface Named {
  metadata: { name: string; resourceVersion?: string };
}

/**
 * Creates `body` in `collection`, or replaces the existing object of its name (re-reading its resourceVersion on
 * update conflicts, five times at most). `what` names the object in errors, e.g. "CRD widgets.example.com".
 */
export async function createOrReplace(
  client: AdminClient,
  collection: string,
  body: Named,
  what: string,
): Promise<void> {
  const created = await client.request('POST', collection, body);
  if (created.status === 201 || created.status === 200) return;
  if (created.status !== 409) throw apiError(`creating ${what}`, created);
  const path = `${collection}/${body.metadata.name}`;
  for (let attempt = 0; ; attempt++) {
    const current = await client.request('GET', path);
    if (current.status !== 200) throw apiError(`reading ${what}`, current);
    const rv = (current.body as Named).metadata.resourceVersion;
    const updated = await client.request('PUT', path, { ...body, metadata: { ...body.metadata, resourceVersion: rv } });
    if (updated.status === 200) return;
    if (updated.status !== 409 || attempt >= 5) throw apiError(`updating ${what}`, updated);
  }
}

export function apiError(doing: string, res: Response): Error {
  const msg = (res.body as { message?: string } | null)?.message ?? res.text.slice(0, 500);
  return new Error(`${doing}: HTTP ${res.status}: ${msg}`);
}
