/**
 * What a failing integration test prints besides its assertion: registered once per file (or suite), each part, such
 * as a manager's log tail or a namespace's recent Events, is printed when any of its tests fails.
 */
import { beforeEach } from 'vitest';

/** A source of diagnostics: returns text to print, and may reset itself before each test. */
export interface FailureReport {
  /** The text to print for a failed test. */
  report(): string | Promise<string>;
  /** Called before each test, so that a report covers the failed test only (a log's lines, say). */
  reset?(): void;
}

/** Prints every part's report when a test in the current file or suite fails. */
export function showOnFailure(...parts: Array<FailureReport | (() => string | Promise<string>)>): void {
  const reports = parts.map((p): FailureReport => (typeof p === 'function' ? { report: p } : p));
  beforeEach(({ onTestFailed }) => {
    for (const r of reports) r.reset?.();
    onTestFailed(async () => {
      for (const r of reports) {
        try {
          console.error(await r.report());
        } catch (err) {
          console.error(`(diagnostics failed: ${err instanceof Error ? err.message : String(err)})`);
        }
      }
    });
  });
}
