// Stack traces that name the TypeScript source, at no cost until one is printed. Node's --enable-source-maps reads
// and keeps every loaded file's source map at start-up: 6 MiB of a bundled manager's resident memory on Node 22, for
// traces an operator prints now and then. Here a map is read the first time a trace passes through its file.
import { SourceMap } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { fs } from '../internal/builtins.js';

const { readFileSync } = fs;

/** A file's source map and the URL its sources are relative to; null when the file has none. */
type FileMap = { map: SourceMap; base: URL } | null;

/**
 * Makes stack traces name the original sources (TypeScript files, lines and columns) of code run from compiled or
 * bundled JavaScript that carries a `//# sourceMappingURL=` comment, as `--enable-source-maps` does. Maps are read
 * the first time a trace goes through their file, so a process that prints no trace pays nothing. Does nothing when
 * Node's own source map support is on. Returns a function that restores the previous `Error.prepareStackTrace`.
 *
 * @example
 * ```ts
 * import { enableSourceMaps } from '@kubescaffold/runtime';
 *
 * // cmd/main.ts, before anything else runs:
 * enableSourceMaps();
 * ```
 */
export function enableSourceMaps(): () => void {
  if (process.sourceMapsEnabled) return () => undefined;
  const previous = Error.prepareStackTrace;
  const maps = new Map<string, FileMap>();
  const mapOf = (file: string): FileMap => {
    let found = maps.get(file);
    if (found === undefined) {
      found = readFileMap(file);
      maps.set(file, found);
    }
    return found;
  };
  Error.prepareStackTrace = (error: Error, frames: NodeJS.CallSite[]): string =>
    [header(error), ...frames.map((frame) => `    at ${mappedFrame(frame, mapOf)}`)].join('\n');
  return () => {
    Error.prepareStackTrace = previous;
  };
}

function header(error: unknown): string {
  try {
    return Error.prototype.toString.call(error);
  } catch {
    return 'Error';
  }
}

/** V8's text for the frame, with its location replaced by the original one when the file's map has it. */
function mappedFrame(frame: NodeJS.CallSite, mapOf: (file: string) => FileMap): string {
  const text = frame.toString();
  const file = frame.getFileName();
  const line = frame.getLineNumber();
  const column = frame.getColumnNumber();
  if (!file || line === null || column === null || file.startsWith('node:')) return text;
  const fileMap = mapOf(file);
  if (!fileMap) return text;
  const entry = fileMap.map.findEntry(line - 1, column - 1) as Partial<{
    originalSource: string;
    originalLine: number;
    originalColumn: number;
  }>;
  if (entry.originalSource === undefined || entry.originalLine === undefined || entry.originalColumn === undefined)
    return text;
  const source = new URL(entry.originalSource, fileMap.base);
  const where = `${source.protocol === 'file:' ? fileURLToPath(source) : source.href}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
  const generated = `${file}:${line}:${column}`;
  const at = text.lastIndexOf(generated);
  return at < 0 ? text : text.slice(0, at) + where + text.slice(at + generated.length);
}

/** The source map a file names in its last `//# sourceMappingURL=` comment, read from disk or a data: URL. */
function readFileMap(file: string): FileMap {
  try {
    const url = file.startsWith('file:') ? new URL(file) : pathToFileURL(file);
    const text = readFileSync(url, 'utf8');
    const comment = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(text.slice(-4096));
    if (!comment) return null;
    const mapUrl = new URL(comment[1]!, url);
    const payload: unknown =
      mapUrl.protocol === 'data:'
        ? JSON.parse(
            Buffer.from(
              mapUrl.pathname.slice(mapUrl.pathname.indexOf(',') + 1),
              mapUrl.pathname.includes(';base64,') ? 'base64' : 'utf8',
            ).toString('utf8'),
          )
        : JSON.parse(readFileSync(mapUrl, 'utf8'));
    const sourceRoot = (payload as { sourceRoot?: unknown }).sourceRoot;
    const base =
      typeof sourceRoot === 'string' && sourceRoot !== ''
        ? new URL(sourceRoot.endsWith('/') ? sourceRoot : `${sourceRoot}/`, mapUrl)
        : mapUrl;
    return { map: new SourceMap(payload as ConstructorParameters<typeof SourceMap>[0]), base };
  } catch {
    // An unreadable file or map leaves the frame as V8 wrote it: a stack trace must never fail to print.
    return null;
  }
}
