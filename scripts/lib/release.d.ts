// Types of release.js, for the tests that import it.
/** A package.json's fields that the release reads and writes. */
export interface Manifest {
  name?: string;
  version?: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  [field: string]: unknown;
}
export declare const RELEASE_ORDER: ReadonlyArray<{ name: string; dir: string }>;
export declare function isReleaseVersion(version: string): boolean;
export declare function internalRange(version: string): string;
export declare function atVersion<T extends Manifest>(manifest: T, version: string): T;
export declare function setReleaseVersion(root: string, version: string): string[];
export declare function releaseVersion(root: string): string;
