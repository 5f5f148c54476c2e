/**
 * client-go's discovery: `DiscoveryClient` reads which API groups, versions and resources a server serves, and its
 * version, over a rest client's transport (`new DiscoveryClient(newClient(kc).transport)`).
 *
 * @module @kubescaffold/runtime/discovery
 */
export {
  DiscoveryClient,
  type APIGroup,
  type APIGroupVersion,
  type APIResource,
  type APIResourceList,
  type ServerVersion,
} from './discovery-client.js';
