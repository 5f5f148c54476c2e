/**
 * "A kind made by `scaffold create api`" for tests: a project scaffolded by this checkout's built CLI in a given
 * directory, its CRD as `scaffold manifests` generated it and a Resource descriptor for it. The logic lives in
 * scripts/lib/scaffolded-kind.js, plain JavaScript, because the benchmarks (bench/*.js) use it too.
 */
export {
  scaffoldKind,
  type ScaffoldKindOptions,
  type ScaffoldedKind,
  type ScaffoldedObject,
  type ScaffoldedSpec,
} from '../../scripts/lib/scaffolded-kind.js';
