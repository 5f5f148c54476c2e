// Types of public-api.js, for the tests that import it.
export declare function publicEntryPoints(): string[];
export declare function publicApiFiles(): string[];
