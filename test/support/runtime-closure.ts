/** The runtime's allowed run-time dependencies, and what an install of it put in node_modules. */
import { spawnSync } from 'node:child_process';

/**
 * The runtime's whole run-time dependency closure, as `npm install --omit=dev` of its tarball alone installs it: what
 * an operator that runs unbundled carries. A package outside this list fails the test; add one only with a reason.
 */
export const RUNTIME_CLOSURE_ALLOWED: Record<string, string> = {
  'prom-client': 'metrics (its lib/ modules only: the index would load default metrics and @opentelemetry/api)',
  tdigest: "prom-client's summaries",
  bintrees: "tdigest's tree",
  '@opentelemetry/api': "prom-client's exemplars; installed, never loaded by the runtime",
  'js-yaml': 'kubeconfig files',
  argparse: "js-yaml's CLI; installed, never loaded",
  'fast-json-patch': "the fake client's JSON patches",
  'https-proxy-agent': 'HTTPS_PROXY, loaded only when a proxy is configured',
  'socks-proxy-agent': 'socks5 proxies, loaded only when one is configured',
  'agent-base': "the proxy agents' base",
  'proxy-agent-negotiate': "https-proxy-agent's authentication",
  debug: "the proxy agents' logging",
  ms: "debug's durations",
  socks: "socks-proxy-agent's protocol",
  'ip-address': "socks's addresses",
  'smart-buffer': "socks's buffers",
};

/** The names of every package `npm ls` lists under `dir` without devDependencies, but `except`; a nested copy counts. */
export function installedClosure(dir: string, except: string): string[] {
  const ls = spawnSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], { cwd: dir, encoding: 'utf8' });
  if (ls.status !== 0) throw new Error(`npm ls in ${dir} exited ${ls.status ?? ls.signal}:\n${ls.stdout}${ls.stderr}`);
  const installed = new Set(
    ls.stdout
      .split('\n')
      .map((line) => line.split('/node_modules/').slice(1).join('/node_modules/'))
      .filter((name) => name !== '' && name !== except),
  );
  // Nested copies (a/node_modules/b) count as b.
  return [...new Set([...installed].map((path) => path.split('/node_modules/').at(-1)!))].sort();
}
