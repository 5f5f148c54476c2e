// Types of api-reference.js, for the tests that import it.
export declare function writeApiReference(outDir: string): Promise<void>;
