// Package v1 declares, in Go, the types the defaulting golden test models from literals, with
// the hand-written SetDefaults_ hooks and scheme wiring the generated file relies on, so the
// golden zz_generated.defaults.go next to it compiles and its test can run it.
package v1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Engine is a named string.
type Engine string

// Count is a named integer.
type Count int64

// Port is defaulted by a hook and a marker.
type Port struct {
	Name     string `json:"name"`
	Protocol string `json:"protocol,omitempty"`
}

// BackupPolicy has basic defaults.
type BackupPolicy struct {
	RetentionDays int32   `json:"retentionDays,omitempty"`
	Enabled       bool    `json:"enabled,omitempty"`
	Ratio         float64 `json:"ratio,omitempty"`
}

// WidgetSpec has one default of every kind and nested defaults of every shape.
type WidgetSpec struct {
	Engine   Engine            `json:"engine,omitempty"`
	Replicas *int32            `json:"replicas,omitempty"`
	Size     resource.Quantity `json:"size,omitempty"`
	Backup   *BackupPolicy     `json:"backup,omitempty"`
	Ports    []Port            `json:"ports,omitempty"`
	ByName   map[string]Port   `json:"byName,omitempty"`
	Refs     map[string]*Port  `json:"refs,omitempty"`
	Tags     []string          `json:"tags,omitempty"`
	Labels   map[string]string `json:"labels,omitempty"`
	Count    *Count            `json:"count,omitempty"`
	Grid     [][]Port          `json:"grid,omitempty"`
	Policy   BackupPolicy      `json:"policy,omitempty"`
}

// WidgetStatus has no defaults.
type WidgetStatus struct {
	Phase string `json:"phase,omitempty"`
}

// Widget is a kind with defaults.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetSpec   `json:"spec"`
	Status            WidgetStatus `json:"status,omitempty"`
}

// WidgetList is a list of Widgets.
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Widget `json:"items"`
}

// Gadget is a kind without defaults.
type Gadget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Size              int32 `json:"size,omitempty"`
}

// GadgetList is a list of Gadgets.
type GadgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Gadget `json:"items"`
}

// Thing is a kind defaulted only by its hook.
type Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Note              string `json:"note,omitempty"`
}

// ThingList is a list of Things.
type ThingList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Thing `json:"items"`
}

// SetDefaults_Widget runs before the Widget's field defaults: it names unnamed widgets.
func SetDefaults_Widget(in *Widget) {
	if in.Name == "" {
		in.Name = "unnamed"
	}
}

// SetDefaults_Port runs before a Port's field defaults: it names unnamed ports.
func SetDefaults_Port(in *Port) {
	if in.Name == "" {
		in.Name = "port"
	}
}

// SetDefaults_Thing notes that a Thing was defaulted.
func SetDefaults_Thing(in *Thing) {
	if in.Note == "" {
		in.Note = "defaulted"
	}
}

// SchemeGroupVersion is the fixture's group version.
var SchemeGroupVersion = schema.GroupVersion{Group: "widgets.example.com", Version: "v1"}

var (
	// SchemeBuilder adds the fixture's types and defaults to a scheme.
	SchemeBuilder      = runtime.NewSchemeBuilder(addKnownTypes)
	localSchemeBuilder = &SchemeBuilder
	// AddToScheme adds the fixture's types and defaults to a scheme.
	AddToScheme = localSchemeBuilder.AddToScheme
)

func addKnownTypes(scheme *runtime.Scheme) error {
	scheme.AddKnownTypes(SchemeGroupVersion, &Widget{}, &WidgetList{}, &Gadget{}, &GadgetList{}, &Thing{}, &ThingList{})
	return nil
}

// The fixture's DeepCopyObject methods are shallow: the test only needs runtime.Object.

func (in *Widget) DeepCopyObject() runtime.Object     { out := *in; return &out }
func (in *WidgetList) DeepCopyObject() runtime.Object { out := *in; return &out }
func (in *Gadget) DeepCopyObject() runtime.Object     { out := *in; return &out }
func (in *GadgetList) DeepCopyObject() runtime.Object { out := *in; return &out }
func (in *Thing) DeepCopyObject() runtime.Object      { out := *in; return &out }
func (in *ThingList) DeepCopyObject() runtime.Object  { out := *in; return &out }
