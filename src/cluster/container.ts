/**
 * What the kubelet works out for a container before it starts it: resource quantities as numbers, and the
 * environment with the Downward API (fieldRef, resourceFieldRef) and $(VAR) references resolved. Used to run a
 * manager locally the way its Deployment would run it in a pod.
 */

/** The parts of a container spec read here (core/v1 Container). */
export interface ContainerSpec {
  name: string;
  env?: EnvVar[];
  resources?: { limits?: Record<string, string>; requests?: Record<string, string> };
}

/** One env entry of a container spec (core/v1 EnvVar, the sources the Downward API offers). */
export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: {
    fieldRef?: { fieldPath: string; apiVersion?: string };
    resourceFieldRef?: { resource: string; divisor?: string | number; containerName?: string };
    configMapKeyRef?: { name: string; key: string; optional?: boolean };
    secretKeyRef?: { name: string; key: string; optional?: boolean };
  };
}

/** What only a running pod knows, for fieldRef. */
export interface PodFacts {
  name: string;
  namespace: string;
  uid?: string;
  nodeName?: string;
  serviceAccountName?: string;
  podIP?: string;
  hostIP?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  /** The node's allocatable memory and CPU, used (as by the kubelet) for a limit that is not set. */
  nodeAllocatable?: { memory: number; cpu: number };
}

const BINARY: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const DECIMAL: Record<string, number> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
};

/** A Kubernetes resource.Quantity ("128Mi", "500m", "1.5G", "2e3") as a number of base units. */
export function parseQuantity(q: string | number): number {
  if (typeof q === 'number') return q;
  const m = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:(Ki|Mi|Gi|Ti|Pi|Ei)|([eE][+-]?\d+)|(n|u|m|k|M|G|T|P|E)?)$/.exec(q.trim());
  if (!m) throw new Error(`"${q}" is not a Kubernetes quantity (e.g. 128Mi, 500m, 1G)`);
  const n = Number(m[1]);
  if (m[2]) return n * BINARY[m[2]]!;
  if (m[3]) return n * 10 ** Number(m[3].slice(1));
  return n * DECIMAL[m[4] ?? '']!;
}

/**
 * The container's environment as the kubelet builds it: entries in order, each value's $(VAR) references expanded
 * from the entries before it ($$ is a literal $; unknown references stay as written), fieldRef and resourceFieldRef
 * resolved. ConfigMap and Secret references cannot be resolved here and are reported.
 */
export function resolveContainerEnv(container: ContainerSpec, pod: PodFacts): Record<string, string> {
  const env: Record<string, string> = {};
  for (const e of container.env ?? []) {
    if (e.valueFrom) env[e.name] = valueFrom(e, container, pod);
    else env[e.name] = expand(e.value ?? '', env);
  }
  return env;
}

function valueFrom(e: EnvVar, container: ContainerSpec, pod: PodFacts): string {
  const from = e.valueFrom!;
  if (from.fieldRef) return fieldValue(from.fieldRef.fieldPath, pod, e.name);
  if (from.resourceFieldRef) return resourceValue(from.resourceFieldRef, container, pod, e.name);
  const ref = from.configMapKeyRef
    ? `ConfigMap ${from.configMapKeyRef.name}`
    : from.secretKeyRef
      ? `Secret ${from.secretKeyRef.name}`
      : 'an unknown source';
  throw new Error(
    `env ${e.name} of container ${container.name} reads ${ref}, which a local run cannot resolve; set it with a value instead`,
  );
}

function fieldValue(path: string, pod: PodFacts, name: string): string {
  const keyed = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(path);
  if (keyed) return (keyed[1] === 'labels' ? pod.labels : pod.annotations)?.[keyed[2]!] ?? '';
  const fields: Record<string, string | undefined> = {
    'metadata.name': pod.name,
    'metadata.namespace': pod.namespace,
    'metadata.uid': pod.uid,
    'spec.nodeName': pod.nodeName,
    'spec.serviceAccountName': pod.serviceAccountName,
    'status.podIP': pod.podIP,
    'status.podIPs': pod.podIP,
    'status.hostIP': pod.hostIP,
    'status.hostIPs': pod.hostIP,
  };
  if (!(path in fields)) throw new Error(`env ${name}: fieldRef ${path} is not a field the Downward API offers`);
  return fields[path] ?? '';
}

// The kubelet divides by the divisor and rounds up; an unset limit is the node's allocatable amount.
function resourceValue(
  ref: { resource: string; divisor?: string | number },
  container: ContainerSpec,
  pod: PodFacts,
  name: string,
): string {
  const [kind, resource] = ref.resource.split('.') as [string, string | undefined];
  if (
    (kind !== 'limits' && kind !== 'requests') ||
    (resource !== 'memory' && resource !== 'cpu' && resource !== 'ephemeral-storage')
  ) {
    throw new Error(
      `env ${name}: resourceFieldRef ${ref.resource} is not one of limits/requests.cpu/memory/ephemeral-storage`,
    );
  }
  const divisor = parseQuantity(ref.divisor ?? '1');
  if (!(divisor > 0)) throw new Error(`env ${name}: resourceFieldRef divisor ${String(ref.divisor)} must be positive`);
  const set =
    container.resources?.[kind]?.[resource] ??
    (kind === 'requests' ? container.resources?.limits?.[resource] : undefined);
  let amount: number;
  if (set !== undefined) amount = parseQuantity(set);
  else if (resource === 'memory' && pod.nodeAllocatable) amount = pod.nodeAllocatable.memory;
  else if (resource === 'cpu' && pod.nodeAllocatable) amount = pod.nodeAllocatable.cpu;
  else throw new Error(`env ${name}: ${ref.resource} of container ${container.name} is not set`);
  return String(Math.ceil(amount / divisor));
}

/** Kubernetes' $(VAR) expansion of one value against the variables defined so far. */
export function expand(value: string, vars: Record<string, string>): string {
  return value.replace(/\$\$|\$\(([^)]*)\)/g, (whole, ref: string | undefined) => {
    if (whole === '$$') return '$';
    return ref !== undefined && Object.hasOwn(vars, ref) ? vars[ref]! : whole;
  });
}

const PERCENTAGE_FLAG = '--max-old-space-size-percentage';

/**
 * NODE_OPTIONS for running the container's process with a local Node. Node 22.21 and later size the heap from
 * --max-old-space-size-percentage and the cgroup's memory limit; an older Node refuses the flag, so it becomes the
 * --max-old-space-size (MiB) it stands for under `limitBytes`.
 */
export function nodeOptionsForLocalRun(nodeOptions: string, limitBytes: number, supportsPercentage: boolean): string {
  if (supportsPercentage) return nodeOptions;
  return nodeOptions.replace(
    new RegExp(`${PERCENTAGE_FLAG}=(\\d+(?:\\.\\d+)?)`, 'g'),
    (_, pct: string) => `--max-old-space-size=${Math.floor(((limitBytes / 2 ** 20) * Number(pct)) / 100)}`,
  );
}
