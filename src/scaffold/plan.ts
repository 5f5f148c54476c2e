import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { ScaffoldError } from '../errors.js';
import { OutsideProjectError, resolveInProject } from '../files/confine.js';
import { decodeUtf8 } from '../files/utf8.js';
import { insertFragments } from './inserter.js';

/** What to do when a templated file already exists: kubebuilder's SkipFile, Error and OverwriteFile. */
export type IfExists = 'skip' | 'error' | 'overwrite';

interface FileModel {
  /** Text, or the bytes of a file copied as it is (a vendored tarball). */
  content: string | Buffer;
  /** Whether the content must be written (false for a skipped file that exists). */
  dirty: boolean;
}

/**
 * One scaffold run: templates, marker insertions and edits are applied to in-memory models first; nothing touches
 * the disk until commit(), which writes every file or, if any write fails, restores what was there. A path that leads
 * out of the project through a symbolic link is a problem that stops the commit; links inside it are followed.
 */
export class Plan {
  private readonly models = new Map<string, FileModel>();
  private readonly problems: string[] = [];

  constructor(readonly root: string) {}

  /** Adds a rendered file at a project-relative path. */
  template(path: string, content: string, ifExists: IfExists): void {
    this.place(path, content, ifExists);
  }

  /** Adds a file whose bytes are written as they are (a package tarball), at a project-relative path. */
  file(path: string, bytes: Buffer, ifExists: IfExists): void {
    this.place(path, bytes, ifExists);
  }

  private place(path: string, content: string | Buffer, ifExists: IfExists): void {
    const model = this.models.get(path);
    if (model && ifExists === 'skip') return;
    if (!model && this.existsOnDisk(path)) {
      if (ifExists === 'skip') {
        // kept as it is: bytes, which a tarball's are and which need no decoding
        this.models.set(path, { content: readFileSync(this.diskPath(path)!), dirty: false });
        return;
      }
      if (ifExists === 'error') {
        this.problems.push(`${path} already exists; remove it or re-run with --force to overwrite it`);
        return;
      }
    }
    this.models.set(path, { content, dirty: true });
  }

  /** Inserts fragments above `+kubebuilder:scaffold:<marker>` lines of a planned or existing file. */
  insert(path: string, fragments: Record<string, string[]>, options: { ifMissing?: 'error' | 'ignore' } = {}): void {
    const base = this.current(path);
    if (base === undefined) {
      if (options.ifMissing !== 'ignore')
        this.problems.push(
          `${path} does not exist; it should hold +kubebuilder:scaffold markers (restore it from your initial scaffold)`,
        );
      return;
    }
    const result = insertFragments(path, base, fragments);
    for (const marker of result.missingMarkers) {
      this.problems.push(
        `${path} has no "+kubebuilder:scaffold:${marker}" marker; add the marker comment back where new code should go`,
      );
    }
    if (result.content !== base) this.models.set(path, { content: result.content, dirty: true });
  }

  /** A string-level edit of a planned or existing file (kubebuilder's InsertCode/UncommentCode helpers). */
  edit(path: string, apply: (content: string) => string, options: { ifMissing?: 'error' | 'ignore' } = {}): void {
    const base = this.current(path);
    if (base === undefined) {
      if (options.ifMissing !== 'ignore') this.problems.push(`${path} does not exist`);
      return;
    }
    const next = apply(base);
    if (next !== base) this.models.set(path, { content: next, dirty: true });
  }

  /** The file's content as it will be after this plan (undefined when it neither exists nor is planned). */
  current(path: string): string | undefined {
    const model = this.models.get(path);
    if (model) return typeof model.content === 'string' ? model.content : decodeUtf8(model.content, path);
    return this.existsOnDisk(path) ? this.readDisk(path) : undefined;
  }

  /** Records a validation problem; commit() refuses to write when any was recorded. */
  fail(problem: string): void {
    this.problems.push(problem);
  }

  /** The files commit() would write, project-relative. */
  pendingPaths(): string[] {
    return [...this.models]
      .filter(([, m]) => m.dirty)
      .map(([p]) => p)
      .sort();
  }

  /** Writes every changed file, or nothing: on a failed write, files already written are put back. */
  commit(): string[] {
    const pending = this.pendingPaths().map((path) => ({ path, absolute: this.diskPath(path) }));
    if (this.problems.length > 0) throw new ScaffoldError([...new Set(this.problems)].join('\n'));
    const written: Array<{ path: string; absolute: string; previous: Buffer | undefined }> = [];
    const createdDirs: string[] = [];
    try {
      for (const { path, absolute } of pending as Array<{ path: string; absolute: string }>) {
        const previous = existsSync(absolute) ? readFileSync(absolute) : undefined;
        const dir = dirname(absolute);
        if (!existsSync(dir)) createdDirs.push(mkdirSync(dir, { recursive: true }) ?? dir);
        const temp = `${absolute}.scaffold-tmp`;
        // 'wx' creates the file and never follows a link planted under the temporary name
        rmSync(temp, { force: true });
        writeFileSync(temp, this.models.get(path)!.content, { flag: 'wx' });
        renameSync(temp, absolute);
        written.push({ path, absolute, previous });
      }
    } catch (err) {
      for (const { absolute, previous } of written.reverse()) {
        if (previous === undefined) rmSync(absolute, { force: true });
        else writeFileSync(absolute, previous);
      }
      for (const dir of createdDirs.reverse()) rmSync(dir, { recursive: true, force: true });
      throw new ScaffoldError(
        `could not write ${relative(this.root, String((err as NodeJS.ErrnoException).path ?? ''))}: ${(err as Error).message}; nothing was changed`,
      );
    }
    return written.map((w) => w.path);
  }

  /** Where a project-relative path really is (links in the project followed); undefined, and a problem, when out of it. */
  private diskPath(path: string): string | undefined {
    try {
      return resolveInProject(this.root, path, 'write');
    } catch (err) {
      if (!(err instanceof OutsideProjectError)) throw err;
      this.problems.push(err.message);
      return undefined;
    }
  }

  private existsOnDisk(path: string): boolean {
    const absolute = this.diskPath(path);
    return absolute !== undefined && existsSync(absolute);
  }

  private readDisk(path: string): string {
    return decodeUtf8(readFileSync(this.diskPath(path)!), path);
  }
}
