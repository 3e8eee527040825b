package v1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Holder reaches every shared apimachinery type.
// +kubebuilder:object:root=true
type Holder struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec HolderSpec `json:"spec"`
}

// HolderSpec names the shared types.
type HolderSpec struct {
	Condition     metav1.Condition                 `json:"condition"`
	LabelSelector metav1.LabelSelector             `json:"labelSelector"`
	Time          metav1.Time                      `json:"time"`
	MicroTime     metav1.MicroTime                 `json:"microTime"`
	Duration      metav1.Duration                  `json:"duration"`
	Quantity      resource.Quantity                `json:"quantity"`
	IntOrString   intstr.IntOrString               `json:"intOrString"`
	RawExtension  runtime.RawExtension             `json:"rawExtension"`
	ListOptions   metav1.ListOptions               `json:"listOptions"`
	GetOptions    metav1.GetOptions                `json:"getOptions"`
	CreateOptions metav1.CreateOptions             `json:"createOptions"`
	UpdateOptions metav1.UpdateOptions             `json:"updateOptions"`
	PatchOptions  metav1.PatchOptions              `json:"patchOptions"`
	List          metav1.List                      `json:"list"`
	Table         metav1.Table                     `json:"table"`
	PartialMeta   metav1.PartialObjectMetadata     `json:"partialMeta"`
	PartialList   metav1.PartialObjectMetadataList `json:"partialList"`
	APIGroupList  metav1.APIGroupList              `json:"apiGroupList"`
	APIResources  metav1.APIResourceList           `json:"apiResources"`
	APIVersions   metav1.APIVersions               `json:"apiVersions"`
}

// HolderList is a list of Holders.
// +kubebuilder:object:root=true
type HolderList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Holder `json:"items"`
}
