package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Thing is a kind whose conversion conversion-gen would leave to a hand-written function.
//
// +genclient
// +k8s:conversion-gen=false
type Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Size              int32 `json:"size"`
}

// ThingList is a list of Things.
type ThingList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Thing `json:"items"`
}

// ValidateThing is a validation hook in a version package: apigen does not call it.
func ValidateThing(t *Thing) field.ErrorList { return nil }
