// Synthetic APIs for bench/manifests-compare.js: N Kinds with realistic fields, as a TypeScript project and its Go
// twin (same markers, same docs), so both tools can be run on the same API and their outputs compared.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const group = 'bench.example.com';

function tsKind(k) {
  return `import type { Condition, ObjectMeta, Quantity, TypeMeta, int32, int64, k8s } from '@kubescaffold/runtime';

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
  [
    `resources=${k.toLowerCase()}s,verbs=get;list;watch;create;update;patch;delete`,
    `resources=${k.toLowerCase()}s/status,verbs=get;update;patch`,
    `resources=${k.toLowerCase()}s/finalizers,verbs=update`,
  ]
    .map((r) => `// +kubebuilder:rbac:groups=${group},${r}`)
    .join('\n');

/** Writes ts-<n>/ and go-<n>/ under base; `prepareGo(dir)` turns the Go one into a module. */
export function makeProjects(n, base, prepareGo) {
  const ts = join(base, `ts-${n}`);
  const go = join(base, `go-${n}`);
  for (const d of [
    join(ts, 'api/v1'),
    join(ts, 'internal/controller'),
    join(go, 'api/v1'),
    join(go, 'internal/controller'),
  ])
    mkdirSync(d, { recursive: true });
  // `scaffold manifests` runs in a kubescaffold project (the generator reads the folders it lists, as without --paths).
  writeFileSync(
    join(ts, 'PROJECT'),
    `domain: example.com\nlayout:\n- typescript.kubescaffold.io/v1\nprojectName: bench\nrepo: bench\nversion: "3"\n`,
  );
  writeFileSync(
    join(ts, 'api/v1/groupversion_info.ts'),
    `// +groupName=${group}\nexport const GroupVersion = { group: '${group}', version: 'v1' } as const;\n`,
  );
  writeFileSync(join(go, 'api/v1/groupversion_info.go'), `// +groupName=${group}\npackage v1\n`);
  for (let i = 0; i < n; i++) {
    const k = `Kind${String(i).padStart(3, '0')}`;
    writeFileSync(join(ts, `api/v1/${k.toLowerCase()}_types.ts`), tsKind(k));
    writeFileSync(join(go, `api/v1/${k.toLowerCase()}_types.go`), goKind(k));
    writeFileSync(
      join(ts, `internal/controller/${k.toLowerCase()}_controller.ts`),
      `${rbac(k)}\n\nexport class ${k}Reconciler {}\n`,
    );
    writeFileSync(
      join(go, `internal/controller/${k.toLowerCase()}_controller.go`),
      `${rbac(k)}\n\npackage controller\n`,
    );
  }
  prepareGo?.(go);
  return { ts, go };
}
