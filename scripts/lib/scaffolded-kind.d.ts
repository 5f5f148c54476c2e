// Types of scaffolded-kind.js, for the tests that import it (through test/support/scaffolded-kind.ts).
import type { KubeObject, Resource } from '@kubescaffold/runtime/rest';

/** What the spec of a scaffolded kind holds: the scaffold's own example field and the one added beside it. */
export interface ScaffoldedSpec {
  /** The scaffold's example field (templates/api): the fixture's and shardpeer's "want". */
  foo?: string;
  /** Added by scaffoldKind: free text, the benchmarks' payload. */
  pad?: string;
}

/** An object of a scaffolded kind. */
export interface ScaffoldedObject extends KubeObject {
  spec: ScaffoldedSpec;
}

/** A kind made by `scaffold create api` in a project of its own. */
export interface ScaffoldedKind {
  /** The project's directory (the one given). */
  dir: string;
  /** config/crd/bases/<group>_<plural>.yaml as `scaffold manifests` wrote it. */
  crdFile: string;
  /** The CRD, parsed from crdFile. */
  crd: KubeObject & { spec: { group: string; names: { plural: string; kind: string }; scope: string } };
  /** A descriptor for the runtime's clients, caches and controllers. */
  resource: Resource<ScaffoldedObject>;
  /** `plural.group/version/Kind`, e.g. ships.fleet.example.com/v1/Ship: SHARD_RESOURCE, shardpeer's -resource. */
  name: string;
}

/** Options of scaffoldKind; the defaults make ships.fleet.example.com/v1/Ship. */
export interface ScaffoldKindOptions {
  domain?: string;
  group?: string;
  version?: string;
  kind?: string;
}

/**
 * Scaffolds a project in `dir` (an empty directory) with this checkout's built CLI (`init --skip-install`, `create api
 * --resource --controller=false`, a `pad` string added to the spec, `manifests`) and returns its namespaced kind.
 */
export function scaffoldKind(dir: string, options?: ScaffoldKindOptions): Promise<ScaffoldedKind>;
