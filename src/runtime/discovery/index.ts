/**
 * client-go's discovery: `DiscoveryClient` reads which API groups, versions and resources a server serves, and its
 * version, over a rest client's transport (`new DiscoveryClient(newClient(kc).transport)`); with aggregated discovery
 * in one request where the server supports it.
 *
 * @module @kubescaffold/runtime/discovery
 */
export {
  DiscoveryClient,
  type AggregatedDiscovery,
  type APIGroup,
  type APIGroupVersion,
  type APIResource,
  type APIResourceList,
  type ServerVersion,
} from './discovery-client.js';
