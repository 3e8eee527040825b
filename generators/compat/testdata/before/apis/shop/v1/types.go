package v1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Widget is a widget.
// +kubebuilder:object:root=true
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetSpec   `json:"spec"`
	Status            WidgetStatus `json:"status,omitempty"`
}

// WidgetList is a list of widgets.
// +kubebuilder:object:root=true
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Widget `json:"items"`
}

// Mode is how a widget runs.
// +kubebuilder:validation:Enum=Fast;Slow;Off
type Mode string

// Color is a widget's color.
// +kubebuilder:validation:Enum=red;green
type Color string

// Item is one entry of a list map.
type Item struct {
	Name string `json:"name"`
	Port int32  `json:"port"`
}

// Percent is a share, 0 to 100.
// It has no marker here.
type Percent int32

// Ref names another object.
type Ref struct {
	Name string `json:"name,omitempty"`
}

// WidgetSpec is the desired state.
type WidgetSpec struct {
	Removed string `json:"removed,omitempty"`
	OldName string `json:"oldName,omitempty"`
	Count   int32  `json:"count,omitempty"`
	Size    int32  `json:"size,omitempty"`
	Ptr     *int32 `json:"ptr,omitempty"`
	Mode    Mode   `json:"mode,omitempty"`
	Color   Color  `json:"color,omitempty"`
	Tier    string `json:"tier,omitempty"`
	Opt     string `json:"opt,omitempty"`
	// +kubebuilder:validation:Minimum=1
	Min int32 `json:"min,omitempty"`
	// +kubebuilder:validation:Maximum=10
	Max int32 `json:"max,omitempty"`
	// +kubebuilder:validation:MaxLength=20
	Title string `json:"title,omitempty"`
	// +kubebuilder:validation:MinLength=1
	Short string `json:"short,omitempty"`
	// +kubebuilder:validation:MaxItems=5
	Tags []string `json:"tags,omitempty"`
	// +kubebuilder:validation:Pattern=`^[a-z]+$`
	Code string `json:"code,omitempty"`
	// +kubebuilder:validation:Format=hostname
	Host  string `json:"host,omitempty"`
	Rule  string `json:"rule,omitempty"`
	Ratch string `json:"ratch,omitempty"`
	// +kubebuilder:validation:XValidation:rule="self.size() < 10"
	Changed string `json:"changed,omitempty"`
	// +kubebuilder:default=a
	Def string `json:"def,omitempty"`
	// +listType=set
	Set []string `json:"set,omitempty"`
	// +listType=map
	// +listMapKey=name
	Items []Item `json:"items,omitempty"`
	// +mapType=granular
	Labels map[string]string `json:"labels,omitempty"`
	Ref    Ref               `json:"ref,omitempty"`
	// +kubebuilder:validation:Maximum=5
	Loose int32 `json:"loose,omitempty"`
	// +kubebuilder:validation:Maximum=100
	Ceiling int32 `json:"ceiling,omitempty"`
	// +kubebuilder:validation:Maximum=7
	Spelled int32 `json:"spelled,omitempty"`
	// +kubebuilder:validation:Maximum=100
	Moved Percent `json:"moved,omitempty"`
}

// WidgetStatus is the observed state.
type WidgetStatus struct {
	Legacy string `json:"legacy,omitempty"`
	Ready  bool   `json:"ready,omitempty"`
}

// Gadget is removed later.
// +kubebuilder:object:root=true
type Gadget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

// GadgetList is a list of gadgets.
// +kubebuilder:object:root=true
type GadgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Gadget `json:"items"`
}

// Gizmo becomes cluster-scoped later.
// +kubebuilder:object:root=true
type Gizmo struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

// GizmoList is a list of gizmos.
// +kubebuilder:object:root=true
type GizmoList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Gizmo `json:"items"`
}
