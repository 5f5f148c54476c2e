// Types of controller-gen.js, for the tests that import it.
export declare const CONTROLLER_GEN_VERSION: string;
export declare const K8S_MODULE_VERSION: string;
export declare function hasGo(): boolean;
export declare function findControllerGen(): string | undefined;
export declare function prepareGoModule(dir: string, module: string): void;
