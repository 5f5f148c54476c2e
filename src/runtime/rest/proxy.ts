// Agents that reach the API server through the cluster's proxy-url, as client-go supports it: an http or https proxy
// (HTTP CONNECT) or socks5. The proxy libraries are imported only when a proxy is configured.
import type http from 'node:http';
import type https from 'node:https';
import { KubeConfigError } from '../clientcmd/kubeconfig-error.js';

/** Builds a keep-alive agent that tunnels through the proxy, from https.Agent options. */
export type ProxyAgentFactory = (opts: https.AgentOptions) => http.Agent;

/** Loads the proxy library for `proxyURL` and returns a factory of its agents. */
export async function proxyAgentFactory(proxyURL: string, source: string): Promise<ProxyAgentFactory> {
  const url = URL.canParse(proxyURL) ? new URL(proxyURL) : undefined;
  if (url?.protocol === 'http:' || url?.protocol === 'https:') {
    const { HttpsProxyAgent } = await import('https-proxy-agent');
    return (opts) => new HttpsProxyAgent(url, opts);
  }
  if (url?.protocol === 'socks5:') {
    const { SocksProxyAgent } = await import('socks-proxy-agent');
    // Go's SOCKS5 dialer sends the host name to the proxy to resolve: that is socks5h in this library's terms.
    const remote = new URL(url.href.replace(/^socks5:/, 'socks5h:'));
    return (opts) => {
      // SocksProxyAgent reads `timeout` as a limit on the whole connection, which would end idle watches; it is
      // given only to http.Agent, which closes idle pooled sockets with it.
      const { timeout, ...rest } = opts;
      const agent = new SocksProxyAgent(remote, rest);
      agent.options.timeout = timeout;
      return agent;
    };
  }
  throw new KubeConfigError(`${source}: proxy-url "${proxyURL}" is not an http://, https:// or socks5:// URL`);
}
