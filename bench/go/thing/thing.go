// Package thing is the benchmarks' custom resource (bench.kubescaffold.dev/v1 Thing) as kubebuilder would generate
// it: Go types with hand-written deep copies, registered in a scheme. bench/runtime-lib.js defines the same CRD and
// builds objects of the same shape for the TypeScript side.
package thing

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupVersion of Thing; the plural is "things".
var GroupVersion = schema.GroupVersion{Group: "bench.kubescaffold.dev", Version: "v1"}

// Resource is Thing's GroupVersionResource.
var Resource = GroupVersion.WithResource("things")

// AddToScheme registers Thing and ThingList.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &Thing{}, &ThingList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}

type Port struct {
	Name          string `json:"name"`
	ContainerPort int32  `json:"containerPort"`
	Protocol      string `json:"protocol,omitempty"`
}

type EnvVar struct {
	Name  string `json:"name"`
	Value string `json:"value,omitempty"`
}

type Resources struct {
	Requests map[string]string `json:"requests,omitempty"`
	Limits   map[string]string `json:"limits,omitempty"`
}

type ThingSpec struct {
	Replicas    int32             `json:"replicas"`
	Image       string            `json:"image"`
	Paused      bool              `json:"paused,omitempty"`
	Command     []string          `json:"command,omitempty"`
	Ports       []Port            `json:"ports,omitempty"`
	Env         []EnvVar          `json:"env,omitempty"`
	Resources   Resources         `json:"resources,omitempty"`
	Selector    map[string]string `json:"selector,omitempty"`
	Config      map[string]string `json:"config,omitempty"`
	Description string            `json:"description,omitempty"`
}

type ThingStatus struct {
	Token              string `json:"token,omitempty"`
	ObservedGeneration int64  `json:"observedGeneration,omitempty"`
	Stamp              string `json:"stamp,omitempty"`
	Phase              string `json:"phase,omitempty"`
}

type Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              ThingSpec   `json:"spec,omitempty"`
	Status            ThingStatus `json:"status,omitempty"`
}

type ThingList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Thing `json:"items"`
}

func copyMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func (in *ThingSpec) DeepCopyInto(out *ThingSpec) {
	*out = *in
	if in.Command != nil {
		out.Command = append([]string(nil), in.Command...)
	}
	if in.Ports != nil {
		out.Ports = append([]Port(nil), in.Ports...)
	}
	if in.Env != nil {
		out.Env = append([]EnvVar(nil), in.Env...)
	}
	out.Resources.Requests = copyMap(in.Resources.Requests)
	out.Resources.Limits = copyMap(in.Resources.Limits)
	out.Selector = copyMap(in.Selector)
	out.Config = copyMap(in.Config)
}

func (in *Thing) DeepCopyInto(out *Thing) {
	*out = *in
	out.TypeMeta = in.TypeMeta
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	in.Spec.DeepCopyInto(&out.Spec)
	out.Status = in.Status
}

func (in *Thing) DeepCopy() *Thing {
	if in == nil {
		return nil
	}
	out := new(Thing)
	in.DeepCopyInto(out)
	return out
}

func (in *Thing) DeepCopyObject() runtime.Object { return in.DeepCopy() }

func (in *ThingList) DeepCopyObject() runtime.Object {
	if in == nil {
		return nil
	}
	out := new(ThingList)
	*out = *in
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	if in.Items != nil {
		out.Items = make([]Thing, len(in.Items))
		for i := range in.Items {
			in.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
	return out
}
