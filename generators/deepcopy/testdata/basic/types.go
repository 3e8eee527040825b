// Package basic declares, in Go, the types the deepcopy golden test models from literals, so
// the golden zz_generated.deepcopy.go next to it compiles and its test can run it.
package basic

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Engine is a named basic type: copied by assignment.
type Engine string

// Names is a named slice.
type Names []string

// Port holds no references: copied by assignment.
type Port struct {
	Name   string
	Number int32
}

// Backup holds a pointer to an external type with DeepCopyInto.
type Backup struct {
	Schedule string
	Last     *metav1.Time
}

// Settings is a named map of structs.
type Settings map[string]Backup

// WidgetSpec has one field of every shape deepcopy handles.
type WidgetSpec struct {
	Engine   Engine
	Replicas *int32
	Size     resource.Quantity
	Labels   map[string]string
	Tags     []string
	Ports    []Port
	Backup   *Backup
	Extra    map[string][]string
	ByName   map[string]Backup
	Refs     []*Port
	Names    Names
	Grid     [2]int32
	Times    [2]metav1.Time
	Optional *[]string
	Settings Settings
	Main     Port
	Backups  []Backup
}

// WidgetStatus holds external types with DeepCopyInto.
type WidgetStatus struct {
	Conditions []metav1.Condition
	Since      metav1.Time
}

// Widget is a root type.
type Widget struct {
	metav1.TypeMeta
	metav1.ObjectMeta
	Spec   WidgetSpec
	Status WidgetStatus
}

// WidgetList is a root list type.
type WidgetList struct {
	metav1.TypeMeta
	metav1.ListMeta
	Items []Widget
}

// Custom is a root whose DeepCopyInto is written by hand; the generator adds the rest.
type Custom struct {
	metav1.TypeMeta
	Data []byte
}

// DeepCopyInto copies in into out, sharing nothing.
func (in *Custom) DeepCopyInto(out *Custom) {
	*out = *in
	out.Data = append([]byte(nil), in.Data...)
}
