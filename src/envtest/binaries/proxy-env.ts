/**
 * Which proxy a request goes through, from HTTPS_PROXY / HTTP_PROXY and NO_PROXY (either case, the
 * lower-case one first, as curl reads them). NO_PROXY entries: "*" (no proxy at all), a host name (that
 * host and its subdomains), ".example.com" (subdomains only), an IP address or a CIDR range, each
 * optionally with ":port". Unlike Go's net/http, loopback addresses are proxied unless NO_PROXY says
 * otherwise, as curl does.
 */
import { BlockList, isIP } from 'node:net';

function envValue(env: NodeJS.ProcessEnv, name: string): string | undefined {
  return env[name.toLowerCase()] || env[name.toUpperCase()] || undefined;
}

/** The proxy URL to use for `target`, or undefined to connect directly. */
export function proxyForUrl(target: URL, env: NodeJS.ProcessEnv): string | undefined {
  const proxy =
    target.protocol === 'https:'
      ? envValue(env, 'https_proxy')
      : target.protocol === 'http:'
        ? envValue(env, 'http_proxy')
        : undefined;
  if (!proxy) return undefined;
  const host = target.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  const port = target.port || (target.protocol === 'https:' ? '443' : '80');
  const noProxy = envValue(env, 'no_proxy') ?? '';
  for (const raw of noProxy.split(/[\s,]+/)) {
    const entry = raw.trim().toLowerCase();
    if (!entry) continue;
    if (entry === '*') return undefined;
    if (matchesNoProxyEntry(entry, host, port)) return undefined;
  }
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(proxy) ? proxy : `http://${proxy}`;
}

function matchesNoProxyEntry(entry: string, host: string, port: string): boolean {
  let name = entry;
  let entryPort: string | undefined;
  const bracketed = /^\[(.+)\](?::(\d+))?$/.exec(entry);
  if (bracketed) {
    name = bracketed[1]!;
    entryPort = bracketed[2];
  } else if (!isIP(entry) && !entry.includes('/')) {
    const m = /^(.*):(\d+)$/.exec(entry);
    if (m) {
      name = m[1]!;
      entryPort = m[2];
    }
  }
  if (entryPort && entryPort !== port) return false;
  if (name.includes('/')) return inCidr(name, host);
  if (isIP(name)) return name === host;
  if (name.startsWith('*.')) name = name.slice(1);
  if (name.startsWith('.')) return host.endsWith(name);
  return host === name || host.endsWith(`.${name}`);
}

function inCidr(cidr: string, host: string): boolean {
  const [net, bits] = cidr.split('/');
  const family = isIP(net ?? '');
  const hostFamily = isIP(host);
  if (!family || family !== hostFamily || !bits) return false;
  const list = new BlockList();
  const type = family === 4 ? 'ipv4' : 'ipv6';
  try {
    list.addSubnet(net!, Number(bits), type);
  } catch {
    return false;
  }
  return list.check(host, type);
}
