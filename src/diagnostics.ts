/** Problems found in the user's sources, each with the place to fix it. */
import { UserError } from './errors.js';

export interface SourcePosition {
  /** Absolute path of the file. */
  file: string;
  /** 1-based line. */
  line: number;
  /** 1-based column. */
  column: number;
}

export interface Diagnostic extends SourcePosition {
  message: string;
}

/** Thrown when generation found problems; nothing has been written. */
export class DiagnosticsError extends UserError {
  constructor(
    readonly diagnostics: readonly Diagnostic[],
    root?: string,
  ) {
    super(formatDiagnostics(diagnostics, root));
    this.name = 'DiagnosticsError';
  }
}

export function formatDiagnostic(d: Diagnostic, root?: string): string {
  return `${displayPath(d.file, root)}:${d.line}:${d.column}: ${d.message}`;
}

export function formatDiagnostics(ds: readonly Diagnostic[], root?: string): string {
  const sorted = [...ds].sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column);
  const unique = sorted.filter(
    (d, i) => i === 0 || formatDiagnostic(d) !== formatDiagnostic(sorted[i - 1] as Diagnostic),
  );
  const lines = unique.map((d) => formatDiagnostic(d, root));
  return lines.length === 1 ? (lines[0] as string) : `${lines.length} problems:\n${lines.join('\n')}`;
}

function displayPath(file: string, root?: string): string {
  if (root && file.startsWith(root.endsWith('/') ? root : `${root}/`))
    return file.slice(root.length + (root.endsWith('/') ? 0 : 1));
  return file;
}

/** Collects diagnostics during a pass; `at` records one. */
export class DiagnosticBag {
  readonly items: Diagnostic[] = [];

  at(pos: SourcePosition, message: string): void {
    this.items.push({ file: pos.file, line: pos.line, column: pos.column, message });
  }

  get empty(): boolean {
    return this.items.length === 0;
  }
}
