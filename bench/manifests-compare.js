#!/usr/bin/env node
// `scaffold manifests` against controller-gen on the same APIs: generated projects of 10, 50 and 200 Kinds with
// realistic fields (PodTemplateSpec, validated scalars, enums, associative lists, maps, Quantity, conditions), each
// with a Go twin, run side by side; reports median wall times and the ratio, and checks that both tools wrote the
// same bytes. Then the `--watch` regeneration time after a one-file change on the 50-Kind API.
// Needs Go (controller-gen is built into ~/.cache/kubescaffold/controller-gen on first use) and `npm run build`.
// Usage: node bench/manifests-compare.js    (env: SIZES=10,50,200  RUNS=5  WATCH_RUNS=9)
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const sizes = (process.env.SIZES ?? '10,50,200').split(',').map(Number);
const runs = Number(process.env.RUNS ?? 5);
const watchRuns = Number(process.env.WATCH_RUNS ?? 9);
const scaffold = fileURLToPath(new URL('../bin/scaffold.js', import.meta.url));
const dist = new URL('../dist/', import.meta.url);
const { findControllerGen, prepareGoModule } = await import(new URL('crd/builtin/controller-gen.js', dist).href);
const { watchManifests } = await import(new URL('generate/watch.js', dist).href);

const group = 'bench.example.com';

function tsKind(k) {
  return `import type { Condition, ObjectMeta, Quantity, TypeMeta, int32, int64, k8s } from 'kubescaffold/runtime';

/** ${k}Phase is where a ${k} is in its life. */
// +kubebuilder:validation:Enum=Pending;Running;Failed
export type ${k}Phase = string;

/** ${k}Endpoint is one endpoint of a ${k}. */
export interface ${k}Endpoint {
  /** name of the endpoint. */
  // +kubebuilder:validation:MinLength=1
  // +kubebuilder:validation:MaxLength=63
  name: string;

  /** port of the endpoint. */
  // +kubebuilder:validation:Minimum=1
  // +kubebuilder:validation:Maximum=65535
  port: int32;

  /** protocol of the endpoint. */
  // +kubebuilder:default=TCP
  // +kubebuilder:validation:Enum=TCP;UDP
  // +optional
  protocol?: string;
}

/** ${k}Spec defines the desired state of ${k}. */
export interface ${k}Spec {
  /** replicas is the desired number of pods. */
  // +kubebuilder:validation:Minimum=0
  // +kubebuilder:default=1
  // +optional
  replicas?: int32;

  /** image to run. */
  image: string;

  /** template of the pods. */
  template: k8s.V1PodTemplateSpec;

  /** endpoints to expose. */
  // +listType=map
  // +listMapKey=name
  // +optional
  endpoints?: ${k}Endpoint[];

  /** labels to add. */
  // +optional
  labels?: Record<string, string>;

  /** args for the image. */
  // +optional
  args?: string[];

  /** paused stops reconciliation. */
  // +optional
  paused?: boolean;

  /** timeoutSeconds bounds each run. */
  // +optional
  timeoutSeconds?: int64;

  /** memory for each pod. */
  // +optional
  memory?: Quantity;

  /** schedule in cron format. */
  // +kubebuilder:validation:Pattern=\`^(\\S+ ){4}\\S+$\`
  // +optional
  schedule?: string;

  /** phase forces a phase. */
  // +optional
  phase?: ${k}Phase;
}

/** ${k}Status defines the observed state of ${k}. */
export interface ${k}Status {
  /** conditions of the ${k}. */
  // +listType=map
  // +listMapKey=type
  // +optional
  conditions?: Condition[];

  /** readyReplicas is the number of ready pods. */
  // +optional
  readyReplicas?: int32;

  /** observedGeneration is the last generation seen. */
  // +optional
  observedGeneration?: int64;

  /** phase of the ${k}. */
  // +optional
  phase?: ${k}Phase;
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=${k.toLowerCase()}x
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=\`.status.phase\`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=\`.metadata.creationTimestamp\`
/** ${k} is the Schema for the ${k.toLowerCase()}s API. */
export interface ${k} extends TypeMeta {
  metadata: ObjectMeta;

  /** spec defines the desired state of ${k}. */
  // +required
  spec: ${k}Spec;

  /** status defines the observed state of ${k}. */
  // +optional
  status?: ${k}Status;
}
`;
}

function goKind(k) {
  return `package v1

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ${k}Phase is where a ${k} is in its life.
// +kubebuilder:validation:Enum=Pending;Running;Failed
type ${k}Phase string

// ${k}Endpoint is one endpoint of a ${k}.
type ${k}Endpoint struct {
	// name of the endpoint.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Name string \`json:"name"\`

	// port of the endpoint.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	Port int32 \`json:"port"\`

	// protocol of the endpoint.
	// +kubebuilder:default=TCP
	// +kubebuilder:validation:Enum=TCP;UDP
	// +optional
	Protocol string \`json:"protocol,omitempty"\`
}

// ${k}Spec defines the desired state of ${k}.
type ${k}Spec struct {
	// replicas is the desired number of pods.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:default=1
	// +optional
	Replicas *int32 \`json:"replicas,omitempty"\`

	// image to run.
	Image string \`json:"image"\`

	// template of the pods.
	Template corev1.PodTemplateSpec \`json:"template"\`

	// endpoints to expose.
	// +listType=map
	// +listMapKey=name
	// +optional
	Endpoints []${k}Endpoint \`json:"endpoints,omitempty"\`

	// labels to add.
	// +optional
	Labels map[string]string \`json:"labels,omitempty"\`

	// args for the image.
	// +optional
	Args []string \`json:"args,omitempty"\`

	// paused stops reconciliation.
	// +optional
	Paused bool \`json:"paused,omitempty"\`

	// timeoutSeconds bounds each run.
	// +optional
	TimeoutSeconds *int64 \`json:"timeoutSeconds,omitempty"\`

	// memory for each pod.
	// +optional
	Memory *resource.Quantity \`json:"memory,omitempty"\`

	// schedule in cron format.
	// +kubebuilder:validation:Pattern=\`^(\\S+ ){4}\\S+$\`
	// +optional
	Schedule string \`json:"schedule,omitempty"\`

	// phase forces a phase.
	// +optional
	Phase ${k}Phase \`json:"phase,omitempty"\`
}

// ${k}Status defines the observed state of ${k}.
type ${k}Status struct {
	// conditions of the ${k}.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition \`json:"conditions,omitempty"\`

	// readyReplicas is the number of ready pods.
	// +optional
	ReadyReplicas int32 \`json:"readyReplicas,omitempty"\`

	// observedGeneration is the last generation seen.
	// +optional
	ObservedGeneration int64 \`json:"observedGeneration,omitempty"\`

	// phase of the ${k}.
	// +optional
	Phase ${k}Phase \`json:"phase,omitempty"\`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=${k.toLowerCase()}x
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=\`.status.phase\`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=\`.metadata.creationTimestamp\`

// ${k} is the Schema for the ${k.toLowerCase()}s API.
type ${k} struct {
	metav1.TypeMeta   \`json:",inline"\`
	metav1.ObjectMeta \`json:"metadata,omitempty"\`

	// spec defines the desired state of ${k}.
	// +required
	Spec ${k}Spec \`json:"spec"\`

	// status defines the observed state of ${k}.
	// +optional
	Status ${k}Status \`json:"status,omitempty"\`
}
`;
}

const rbac = (k) =>
  [`resources=${k.toLowerCase()}s,verbs=get;list;watch;create;update;patch;delete`, `resources=${k.toLowerCase()}s/status,verbs=get;update;patch`, `resources=${k.toLowerCase()}s/finalizers,verbs=update`]
    .map((r) => `// +kubebuilder:rbac:groups=${group},${r}`)
    .join('\n');

function makeProjects(n, base) {
  const ts = join(base, `ts-${n}`);
  const go = join(base, `go-${n}`);
  for (const d of [join(ts, 'api/v1'), join(ts, 'internal/controller'), join(go, 'api/v1'), join(go, 'internal/controller')]) mkdirSync(d, { recursive: true });
  writeFileSync(join(ts, 'api/v1/groupversion_info.ts'), `// +groupName=${group}\nexport const GroupVersion = { group: '${group}', version: 'v1' } as const;\n`);
  writeFileSync(join(go, 'api/v1/groupversion_info.go'), `// +groupName=${group}\npackage v1\n`);
  for (let i = 0; i < n; i++) {
    const k = `Kind${String(i).padStart(3, '0')}`;
    writeFileSync(join(ts, `api/v1/${k.toLowerCase()}_types.ts`), tsKind(k));
    writeFileSync(join(go, `api/v1/${k.toLowerCase()}_types.go`), goKind(k));
    writeFileSync(join(ts, `internal/controller/${k.toLowerCase()}_controller.ts`), `${rbac(k)}\n\nexport class ${k}Reconciler {}\n`);
    writeFileSync(join(go, `internal/controller/${k.toLowerCase()}_controller.go`), `${rbac(k)}\n\npackage controller\n`);
  }
  prepareGoModule(go, 'example.com/bench');
  return { ts, go };
}

function timed(cmd, args, cwd) {
  const start = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed:\n${r.stderr}${r.stdout}`);
  return ms;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function listFiles(dir) {
  return readdirSync(dir).flatMap((e) => (statSync(join(dir, e)).isDirectory() ? listFiles(join(dir, e)) : [join(dir, e)]));
}

function compareOutputs(ts, go) {
  const strip = (s) => s.replace(/^ {4}(controller-gen\.kubebuilder\.io|kubescaffold\.io)\/version: .*\n/m, '');
  const ours = listFiles(join(ts, 'config'));
  const theirs = listFiles(join(go, 'config'));
  if (ours.length !== theirs.length) return `different file sets (${ours.length} vs ${theirs.length})`;
  for (const f of theirs) {
    const mine = join(ts, relative(go, f));
    if (strip(readFileSync(f, 'utf8')) !== strip(readFileSync(mine, 'utf8'))) return `differs: ${relative(go, f)}`;
  }
  return 'identical';
}

const controllerGen = findControllerGen();
const cgArgs = ['rbac:roleName=manager-role', 'crd', 'webhook', 'paths=./...', 'output:crd:artifacts:config=config/crd/bases', 'output:rbac:artifacts:config=config/rbac'];
const base = mkdtempSync(join(tmpdir(), 'bench-manifests-'));
const results = [];
try {
  console.log(`scaffold manifests vs controller-gen, median of ${runs} runs (node ${process.version}, ${execFileSync('go', ['version'], { encoding: 'utf8' }).trim()})`);
  let watchProject;
  for (const n of sizes) {
    const { ts, go } = makeProjects(n, base);
    if (n === 50 || (!watchProject && n === sizes[sizes.length - 1])) watchProject = ts;
    // one warm-up each (Go build cache for go/packages, OS file cache for both)
    timed(controllerGen, cgArgs, go);
    timed(process.execPath, [scaffold, 'manifests'], ts);
    const ours = [];
    const theirs = [];
    for (let i = 0; i < runs; i++) {
      ours.push(timed(process.execPath, [scaffold, 'manifests'], ts));
      theirs.push(timed(controllerGen, cgArgs, go));
    }
    const row = { kinds: n, scaffold: median(ours), controllerGen: median(theirs), output: compareOutputs(ts, go) };
    results.push(row);
    console.log(
      `  ${String(n).padStart(4)} Kinds   scaffold ${row.scaffold.toFixed(0).padStart(6)} ms   controller-gen ${row.controllerGen.toFixed(0).padStart(6)} ms   ratio ${(row.scaffold / row.controllerGen).toFixed(2)}   output ${row.output}`,
    );
  }

  // --watch: time from saving one types file to the regenerated manifests being written
  const controller = new AbortController();
  const done = [];
  let waiting;
  const watching = watchManifests({ root: watchProject, generatorVersion: 'bench', signal: controller.signal, onRun: (r) => waiting?.(r) });
  await new Promise((r) => setTimeout(r, 300));
  const file = join(watchProject, 'api/v1/kind000_types.ts');
  const original = readFileSync(file, 'utf8');
  for (let i = 0; i < watchRuns; i++) {
    const result = new Promise((resolve) => (waiting = resolve));
    const start = process.hrtime.bigint();
    writeFileSync(file, original.replace('/** image to run. */', `/** image to run (edit ${i}). */`));
    const r = await result;
    if (r.error) throw r.error;
    done.push(Number(process.hrtime.bigint() - start) / 1e6);
    await new Promise((r2) => setTimeout(r2, 100));
  }
  controller.abort();
  await watching;
  const kinds = readdirSync(join(watchProject, 'api/v1')).filter((f) => f.endsWith('_types.ts')).length;
  console.log(`  --watch on ${kinds} Kinds: one-file change to manifests written, median of ${watchRuns}: ${median(done).toFixed(0)} ms (includes the 30 ms debounce)`);
  appendFileSync(join(base, 'results.json'), JSON.stringify({ results, watchMs: median(done) }));
} finally {
  rmSync(base, { recursive: true, force: true });
}
