import { describe, expect, it } from 'vitest';
import { proxyForUrl } from '../../src/envtest/binaries/proxy-env.js';

const proxyFor = (url: string, env: NodeJS.ProcessEnv) => proxyForUrl(new URL(url), env);

describe('proxyForUrl', () => {
  it('takes HTTPS_PROXY for https and HTTP_PROXY for http, lower case first', () => {
    const env = { HTTPS_PROXY: 'http://upper:3128', https_proxy: 'http://lower:3128', HTTP_PROXY: 'http://plain:3128' };
    expect(proxyFor('https://example.com/x', env)).toBe('http://lower:3128');
    expect(proxyFor('http://example.com/x', env)).toBe('http://plain:3128');
    expect(proxyFor('https://example.com/x', { HTTP_PROXY: 'http://plain:3128' })).toBeUndefined();
    expect(proxyFor('file:///tmp/index.yaml', env)).toBeUndefined();
  });

  it('adds http:// to a proxy given as host:port', () => {
    expect(proxyFor('https://example.com', { HTTPS_PROXY: 'proxy.corp:3128' })).toBe('http://proxy.corp:3128');
  });

  it('skips the proxy for NO_PROXY hosts, domains, suffixes, IPs, CIDR ranges, ports and *', () => {
    const env = (noProxy: string) => ({ HTTPS_PROXY: 'http://proxy:3128', NO_PROXY: noProxy });
    expect(proxyFor('https://mirror.corp/x', env('mirror.corp'))).toBeUndefined();
    expect(proxyFor('https://a.mirror.corp/x', env('mirror.corp'))).toBeUndefined();
    expect(proxyFor('https://notmirror.corp/x', env('mirror.corp'))).toBe('http://proxy:3128');
    expect(proxyFor('https://mirror.corp/x', env('.mirror.corp'))).toBe('http://proxy:3128');
    expect(proxyFor('https://a.mirror.corp/x', env('*.mirror.corp'))).toBeUndefined();
    expect(proxyFor('https://10.1.2.3/x', env('10.0.0.0/8'))).toBeUndefined();
    expect(proxyFor('https://11.1.2.3/x', env('10.0.0.0/8'))).toBe('http://proxy:3128');
    expect(proxyFor('https://127.0.0.1:8443/x', env('127.0.0.1'))).toBeUndefined();
    expect(proxyFor('https://[::1]:8443/x', env('[::1]:8443'))).toBeUndefined();
    expect(proxyFor('https://mirror.corp:8443/x', env('mirror.corp:443'))).toBe('http://proxy:3128');
    expect(proxyFor('https://mirror.corp/x', env('other, mirror.corp:443'))).toBeUndefined();
    expect(proxyFor('https://anything/x', env('*'))).toBeUndefined();
  });

  it('proxies loopback addresses unless NO_PROXY names them, as curl does', () => {
    expect(proxyFor('http://127.0.0.1:8080/x', { http_proxy: 'http://proxy:3128' })).toBe('http://proxy:3128');
  });
});
