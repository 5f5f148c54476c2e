/**
 * A corpus of public CRDs the round trip of `scaffold import crd` must give back, none of which the other tests use:
 * made by controller-gen, by controller-gen and then edited, by hand, and from protobuf. Each is read where its project
 * publishes it inside a Go module, fetched at test time from the Go module proxy at a pinned version (`go mod
 * download`, into the module cache), so that no CRD's text is kept in this repository. CRDs made by Java (fabric8,
 * Strimzi), Python (kopf) or Rust (kube-derive) are not here: none of those projects publishes its CRDs in a Go module
 * or an npm package, the only registries the tests may fetch from.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { hasGo } from '../../scripts/lib/controller-gen.js';

/** Who made a CRD: the tool or the hand that wrote its schema. */
export type Make = 'controller-gen' | 'controller-gen, edited' | 'hand-written' | 'protobuf';

/** A set of CRDs in one Go module: where they are and who made them. */
export interface CorpusSource {
  name: string;
  make: Make;
  module: string;
  version: string;
  /** Files or folders (their .yaml files) under the module's root. */
  paths: string[];
  /** Files of those folders that hold no CRD, or CRDs of another make listed on their own. */
  skip?: string[];
}

/**
 * The corpus, at versions the Go module proxy serves and this Go toolchain accepts: crd-corpus.json, which
 * bench/import-vs-cdk8s.js reads too.
 */
export const CORPUS: readonly CorpusSource[] = JSON.parse(
  readFileSync(join(import.meta.dirname, 'crd-corpus.json'), 'utf8'),
) as CorpusSource[];

/** Why the corpus cannot be fetched here (undefined when it can), as peerAvailable wants it. */
export function corpusMissing(): string | undefined {
  return hasGo() ? undefined : 'Go is not installed (it fetches the modules that hold the CRDs)';
}

/** The module's folder in the module cache, downloading it on first use; throws naming what failed. */
export function moduleDir(module: string, version: string): string {
  const env = { ...process.env, GOFLAGS: '-mod=mod', GOWORK: 'off', GOTOOLCHAIN: 'local' };
  const out = execFileSync('go', ['mod', 'download', '-json', `${module}@${version}`], {
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 600_000,
  });
  const info = JSON.parse(out) as { Dir?: string; Error?: string };
  if (!info.Dir) throw new Error(`go mod download ${module}@${version}: ${info.Error ?? 'no folder'}`);
  return info.Dir;
}

/** The YAML files of a source, sorted; throws naming a path the module does not have. */
export function corpusFiles(source: CorpusSource): string[] {
  const dir = moduleDir(source.module, source.version);
  const files: string[] = [];
  for (const p of source.paths) {
    const path = join(dir, p);
    if (!existsSync(path)) throw new Error(`${source.module}@${source.version} has no ${p}`);
    if (!statSync(path).isDirectory()) files.push(path);
    else
      for (const f of readdirSync(path).sort())
        if (/\.ya?ml$/.test(f) && !source.skip?.includes(f)) files.push(join(path, f));
  }
  return files;
}
