/**
 * Reading k8s.io/kubernetes' go.mod and writing the throwaway wrapper module that lets the Go
 * toolchain build kube-apiserver from the module proxy. k/k requires each staging module at the
 * nonexistent v0.0.0 and replaces it with ./staging/...; the wrapper points each one at its
 * published v0.MINOR.PATCH instead (kubernetes/kubernetes#79384).
 */
import { stagingModuleVersion, type Version } from '../versions.js';

export interface KubernetesGoMod {
  /** The `go` directive, e.g. "1.26.0": the oldest toolchain that may build it. */
  goVersion: string;
  /** `godebug` settings ("default=go1.26"); only the main module's apply, so the wrapper copies them. */
  godebug: string[];
  /** Staging modules required at v0.0.0, sorted and unique: "k8s.io/api", "k8s.io/apiserver", ... */
  stagingModules: string[];
}

const STAGING_REQUIRE = /^\s*(?:require\s+)?(k8s\.io\/[a-z0-9-]+)\s+v0\.0\.0\s*(?:\/\/.*)?$/;

/** Extracts what the wrapper needs from the text of k8s.io/kubernetes' go.mod. */
export function parseKubernetesGoMod(text: string): KubernetesGoMod {
  const lines = text.split(/\r?\n/);
  let goVersion: string | undefined;
  const godebug: string[] = [];
  const staging = new Set<string>();
  let inGodebugBlock = false;
  for (const raw of lines) {
    const line = raw.replace(/\/\/.*$/, '').trim();
    if (inGodebugBlock) {
      if (line === ')') inGodebugBlock = false;
      else if (line) godebug.push(line);
      continue;
    }
    const go = /^go\s+(\d+\.\d+(?:\.\d+)?)$/.exec(line);
    if (go) goVersion = go[1];
    if (line === 'godebug (') inGodebugBlock = true;
    const single = /^godebug\s+([^()\s]+)$/.exec(line);
    if (single?.[1]) godebug.push(single[1]);
    const req = STAGING_REQUIRE.exec(raw);
    if (req?.[1]) staging.add(req[1]);
  }
  if (!goVersion) throw new Error('go.mod of k8s.io/kubernetes has no go directive');
  if (staging.size === 0) throw new Error('go.mod of k8s.io/kubernetes requires no staging module at v0.0.0');
  return { goVersion, godebug, stagingModules: [...staging].sort() };
}

/** The go.mod of the wrapper module that builds k8s.io/kubernetes/cmd/kube-apiserver at `k8s`. */
export function apiserverWrapperGoMod(k8s: Required<Version>, mod: KubernetesGoMod): string {
  const staging = stagingModuleVersion(k8s);
  const out = ['module example.local/kube-apiserver-build', '', `go ${mod.goVersion}`, ''];
  for (const d of mod.godebug) out.push(`godebug ${d}`);
  if (mod.godebug.length) out.push('');
  out.push(`require k8s.io/kubernetes v${k8s.major}.${k8s.minor}.${k8s.patch}`, '', 'replace (');
  for (const m of mod.stagingModules) out.push(`\t${m} => ${m} ${staging}`);
  out.push(')', '');
  return out.join('\n');
}

/** The go directive of any go.mod text (for etcd's server module). */
export function goDirective(text: string): string | undefined {
  return /^go\s+(\d+\.\d+(?:\.\d+)?)\s*$/m.exec(text)?.[1];
}

/** The go.mod of the wrapper module that builds go.etcd.io/etcd/server/v3 (its own go.mod needs no replaces). */
export function etcdWrapperGoMod(goVersion: string, etcdVersion: string): string {
  return [
    'module example.local/etcd-build',
    '',
    `go ${goVersion}`,
    '',
    `require go.etcd.io/etcd/server/v3 v${etcdVersion}`,
    '',
  ].join('\n');
}
