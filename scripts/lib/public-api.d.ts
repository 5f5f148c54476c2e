// Types of public-api.js, for the tests that import it.
export declare function publicEntryPoints(): string[];
export declare function publicApiFiles(): string[];
/** The packages whose exports are the public API, as folders relative to the repository root. */
export declare const PUBLIC_PACKAGES: readonly string[];
