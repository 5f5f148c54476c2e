/** Which operator to build, and how. */
export interface GoOriginal {
  /** The module path, as the module proxy serves it: `github.com/stakater/Reloader`. */
  module: string;
  /** A version the proxy serves (`go list -m -versions <module>`). */
  version: string;
  /** The main package, relative to the module's root. Default `.`. */
  mainPackage?: string;
  /**
   * `replace` directives added to the module's go.mod, each with why: a dependency pinned at a pseudo-version the
   * proxy refuses (403) is replaced by one it serves.
   */
  replaces?: { from: string; to: string; why: string }[];
  /** The binary's file name in the cache. */
  binary: string;
}
/** stakater/Reloader v1.4.22, the original of examples/reloader (with the replace its build needs). */
export const reloaderOriginal: GoOriginal;
/** cert-manager/trust-manager v0.25.0, the original of examples/trust-manager. */
export const trustManagerOriginal: GoOriginal;
/** The Go toolchain's version (`go1.26.8`); rejects when Go is not installed. */
export function goVersion(): Promise<string>;
/**
 * The path of the original's binary, built from the Go module proxy when the cache has none; `log` gets a line when a
 * build starts.
 */
export function buildGoOriginal(
  spec: GoOriginal,
  opts?: { timeoutMs?: number; log?: (line: string) => void },
): Promise<string>;
