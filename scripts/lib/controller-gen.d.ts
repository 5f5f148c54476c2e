// Types of controller-gen.js, for the tests that import it.
export declare const CONTROLLER_GEN_VERSION: string;
export declare const K8S_MODULE_VERSION: string;
export declare function hasGo(): boolean;
export declare function findControllerGen(): string | undefined;
export declare function prepareGoModule(dir: string, module: string): void;
/** A public module's API packages, as test/fixtures/public-apis/<name>/module.json names them. */
export interface PublicApi {
  module: string;
  version: string;
  /** Go import paths of the API packages controller-gen reads. */
  packages: string[];
  /** Options of controller-gen's crd generator, e.g. maxDescLen=0. */
  crdOptions?: string[];
}
export declare function publicApiCRDs(api: PublicApi, controllerGen: string): Record<string, string>;
export declare function publicApiCRDDir(api: PublicApi, controllerGen: string): string;
