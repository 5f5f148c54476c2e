/**
 * client-go's restmapper: `RESTMapper` maps kinds to the resources that serve them and back, from discovery, and
 * finds CRDs installed after it started; `isNoMatch` tells a kind the server does not serve.
 *
 * @module @kubescaffold/runtime/restmapper
 */
export { RESTMapper, NoKindMatchError, isNoMatch } from './restmapper.js';
