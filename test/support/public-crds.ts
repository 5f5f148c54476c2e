/**
 * CRDs of other projects, generated here by the real controller-gen from their Go modules (fetched from the Go module
 * proxy), for the round trip of `scaffold import crd`. They come from the same cache as the parity test on the public
 * APIs (scripts/lib/controller-gen.js publicApiCRDDir), so only the first run builds them.
 */
import { CONTROLLER_GEN_VERSION, findControllerGen, hasGo, publicApiCRDDir } from '../../scripts/lib/controller-gen.js';

/** A project whose API packages controller-gen turns into CRDs. */
export interface PublicAPI {
  name: string;
  module: string;
  version: string;
  /** Package patterns under the module, e.g. `apis/...`. */
  packages: string[];
  /** Options of controller-gen's crd generator, e.g. allowDangerousTypes=true. */
  crdOptions?: string[];
}

/** Five projects, each from a different organisation, at versions the Go module proxy here serves. */
export const PUBLIC_APIS: readonly PublicAPI[] = [
  { name: 'gateway-api', module: 'sigs.k8s.io/gateway-api', version: 'v1.6.3', packages: ['apis/...'] },
  { name: 'cluster-api', module: 'sigs.k8s.io/cluster-api/api', version: 'v1.14.2', packages: ['core/...'] },
  {
    name: 'prometheus-operator',
    module: 'github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring',
    version: 'v0.95.2',
    packages: ['...'],
  },
  { name: 'network-policy-api', module: 'sigs.k8s.io/network-policy-api', version: 'v0.3.0', packages: ['apis/...'] },
  { name: 'frr-k8s', module: 'github.com/metallb/frr-k8s', version: 'v0.0.21', packages: ['api/...'] },
];

/** Why the CRDs cannot be generated here (undefined when they can), as peerAvailable wants it. */
export function publicCRDsMissing(): string | undefined {
  if (!hasGo()) return "Go is not installed (it builds controller-gen and loads the projects' Go modules)";
  return undefined;
}

/** The folder of the project's generated CRDs, generating them on first use; throws naming what failed. */
export function publicCRDs(api: PublicAPI): string {
  const controllerGen = findControllerGen();
  if (!controllerGen) throw new Error(`controller-gen ${CONTROLLER_GEN_VERSION} cannot be built here`);
  return publicApiCRDDir(
    {
      module: api.module,
      version: api.version,
      packages: api.packages.map((p) => `${api.module}/${p}`),
      ...(api.crdOptions ? { crdOptions: api.crdOptions } : {}),
    },
    controllerGen,
  );
}
