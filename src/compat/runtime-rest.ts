/**
 * @deprecated Import from '@kubescaffold/runtime/rest', the kubeconfig loaders from '@kubescaffold/runtime/clientcmd',
 * `DiscoveryClient` and `RESTMapper` from '@kubescaffold/runtime/discovery' and '@kubescaffold/runtime/restmapper',
 * and the `Client` interface from '@kubescaffold/runtime/client'. The runtime is its own package now, so that an
 * operator's image holds it without the CLI; this re-export keeps projects scaffolded before the split building, with
 * every name kubescaffold/runtime/rest had (docs/guides/upgrading.md).
 *
 * @module kubescaffold/runtime/rest
 */
export * from '@kubescaffold/runtime/rest';
export * from '@kubescaffold/runtime/clientcmd';
export * from '@kubescaffold/runtime/discovery';
export * from '@kubescaffold/runtime/restmapper';
export type { Client, SubResourceWriter } from '@kubescaffold/runtime/client';
