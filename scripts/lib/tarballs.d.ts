// Types of tarballs.js, for the tests that import it.
/** A package's packed and unpacked budgets, in bytes. */
export interface TarballBudget {
  packed: number;
  unpacked: number;
}
/** One package as `npm pack --json` reports it. */
export interface PackedPackage {
  name: string;
  version: string;
  filename: string;
  size: number;
  unpackedSize: number;
  files: Array<{ path: string }>;
}
export declare const TARBALL_BUDGETS: Record<
  'kubescaffold' | '@kubescaffold/runtime' | '@kubescaffold/envtest',
  TarballBudget
>;
export declare function isUnshippable(path: string): boolean;
export declare function tarballProblems(packed: PackedPackage[]): string[];
export declare function missingEntryPoints(
  manifest: { exports?: unknown; bin?: string | Record<string, string> },
  paths: string[],
): string[];
