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
// +kubebuilder:validation:Enum=Fast;Slow
type Mode string

// Color is a widget's color.
// +kubebuilder:validation:Enum=red;green;blue
type Color string

// Item is one entry of a list map.
type Item struct {
	Name string `json:"name"`
	Port int32  `json:"port"`
}

// Percent is a share, 0 to 100.
// +kubebuilder:validation:Maximum=100
type Percent int32

// Ref names another object.
type Ref struct {
	Name string `json:"name,omitempty"`
}

// WidgetSpec is the desired state.
type WidgetSpec struct {
	OldName string `json:"newName,omitempty"`
	Count   string `json:"count,omitempty"`
	Size    int64  `json:"size,omitempty"`
	Ptr     int32  `json:"ptr,omitempty"`
	Mode    Mode   `json:"mode,omitempty"`
	Color   Color  `json:"color,omitempty"`
	// +kubebuilder:validation:Enum=gold;silver
	Tier string `json:"tier,omitempty"`
	Opt  string `json:"opt"`
	// MustHave is new and required.
	MustHave string `json:"mustHave"`
	// Extra is new and optional.
	Extra string `json:"extra,omitempty"`
	// Defaulted is new, required and defaulted.
	// +kubebuilder:default=x
	Defaulted string `json:"defaulted"`
	// +kubebuilder:validation:Minimum=2
	Min int32 `json:"min,omitempty"`
	// +kubebuilder:validation:Maximum=5
	Max int32 `json:"max,omitempty"`
	// +kubebuilder:validation:MaxLength=10
	Title string `json:"title,omitempty"`
	// +kubebuilder:validation:MinLength=3
	Short string `json:"short,omitempty"`
	// +kubebuilder:validation:MaxItems=3
	Tags []string `json:"tags,omitempty"`
	// +kubebuilder:validation:Pattern=`^[a-z]{2,}$`
	Code string `json:"code,omitempty"`
	// +kubebuilder:validation:Format=ipv4
	Host string `json:"host,omitempty"`
	// +kubebuilder:validation:XValidation:rule="self.size() > 1"
	Rule string `json:"rule,omitempty"`
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="immutable"
	Ratch string `json:"ratch,omitempty"`
	// +kubebuilder:validation:XValidation:rule="self.size() < 5"
	Changed string `json:"changed,omitempty"`
	// +kubebuilder:default=b
	Def string `json:"def,omitempty"`
	// +listType=atomic
	Set []string `json:"set,omitempty"`
	// +listType=map
	// +listMapKey=name
	// +listMapKey=port
	Items []Item `json:"items,omitempty"`
	// +mapType=atomic
	Labels map[string]string `json:"labels,omitempty"`
	// +structType=atomic
	Ref Ref `json:"ref,omitempty"`
	// +kubebuilder:validation:Maximum=50
	Loose int32 `json:"loose,omitempty"`
	// +kubebuilder:validation:Maximum=50
	// +apigen:allow-breaking=maximum-lowered
	Ceiling int32 `json:"ceiling,omitempty"`
	// +k8s:maximum=7
	Spelled int32 `json:"spelled,omitempty"`
	// Moved has its maximum on its type now.
	Moved Percent `json:"moved,omitempty"`
}

// WidgetStatus is the observed state.
// +apigen:allow-breaking=field-removed
type WidgetStatus struct {
	Ready bool `json:"ready,omitempty"`
}

// Doohickey is new.
// +kubebuilder:object:root=true
type Doohickey struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

// DoohickeyList is a list of doohickeys.
// +kubebuilder:object:root=true
type DoohickeyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Doohickey `json:"items"`
}

// Gizmo becomes cluster-scoped later.
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster
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
