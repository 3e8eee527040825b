package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Phase is where a Widget is; its constants, sorted, are its values.
// +k8s:enum
type Phase string

// The phases, declared out of order.
const (
	PhaseRunning Phase = "Running"
	PhaseDone    Phase = "Done"
)

// Name is a lower-case name.
// +kubebuilder:validation:MaxLength=63
// +kubebuilder:validation:Pattern=`^[a-z]+$`
type Name string

// Short is declared as Name: it inherits Name's constraints.
// +kubebuilder:validation:MinLength=1
type Short Name

// Tag carries a rule of its own.
// +kubebuilder:validation:XValidation:rule="self.size() > 1",message="type rule"
type Tag string

// Names is a list of names.
// +kubebuilder:validation:MinItems=1
type Names []Name

// Choice has unions over its fields.
// +kubebuilder:validation:ExactlyOneOf=a;b
// +kubebuilder:validation:AtMostOneOf=c;d
// +kubebuilder:validation:AtLeastOneOf=a;c
type Choice struct {
	A *string `json:"a,omitempty"`
	B *string `json:"b,omitempty"`
	C *string `json:"c,omitempty"`
	D *string `json:"d,omitempty"`
}

// Common is inlined into WidgetSpec.
type Common struct {
	// Shared is promoted into the spec.
	Shared string `json:"shared"`
	// Paused is optional.
	// +optional
	Paused bool `json:"paused,omitempty"`
}

// WidgetSpec holds one field per marker.
// +kubebuilder:validation:XValidation:rule="!has(self.frozen) || self.frozen.size() > 0",message="struct rule"
type WidgetSpec struct {
	Common `json:",inline"`

	// Text has a long doc.
	//
	//
	// TODO: this line is dropped.
	// Second paragraph,
	//   with an indented line.
	// ```
	// --- kept inside a code block
	// TODO kept too
	// ```
	// ---
	// Everything from the line above is dropped.
	Text string `json:"text"`
	// Zero has omitzero: optional.
	Zero int32 `json:"zero,omitzero"`
	// Tag has a field rule, before the type's.
	// +kubebuilder:validation:XValidation:rule="self != 'xx'",message="field rule"
	// +optional
	Tag Tag `json:"tag,omitempty"`
	// Short adds its own maxLength to Name's.
	// +kubebuilder:validation:MaxLength=10
	Short Short `json:"short"`
	// Items constrains each item.
	// +kubebuilder:validation:items:MaxLength=5
	// +kubebuilder:validation:items:Pattern=`^[a-z]*$`
	// +listType=set
	// +kubebuilder:validation:MaxItems=4
	// +kubebuilder:validation:UniqueItems=true
	// +optional
	Items []string `json:"items,omitempty"`
	// Names is a named list.
	// +listType=atomic
	// +optional
	Names Names `json:"names,omitempty"`
	// Ref is nullable.
	// +nullable
	// +optional
	Ref *Common `json:"ref,omitempty"`
	// Object defaults to an empty object.
	// +kubebuilder:default={}
	// +kubebuilder:validation:MaxProperties=3
	// +kubebuilder:validation:MinProperties=1
	// +optional
	Object map[string]string `json:"object,omitempty"`
	// List defaults to two items.
	// +kubebuilder:default={a,b}
	// +optional
	List []string `json:"list,omitempty"`
	// Nested defaults to an object with a list.
	// +kubebuilder:default={name: "x", items: {1, 2}}
	// +optional
	Nested *NestedDefault `json:"nested,omitempty"`
	// Count defaults through gengo's marker.
	// +default=3
	// +optional
	Count int64 `json:"count,omitempty"`
	// When is a formatted string.
	// +kubebuilder:validation:Format=date-time
	When string `json:"when"`
	// Ratio is a float.
	// +kubebuilder:validation:Minimum=0.5
	Ratio float64 `json:"ratio"`
	// Even is bounded.
	// +kubebuilder:validation:MultipleOf=2
	// +kubebuilder:validation:Maximum=10
	// +kubebuilder:validation:ExclusiveMaximum=true
	// +kubebuilder:validation:Minimum=-4
	// +kubebuilder:validation:ExclusiveMinimum=true
	Even int64 `json:"even"`
	// Rules has every argument of XValidation.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="m",messageExpression="'no ' + self",reason=FieldValueForbidden,fieldPath=".rules"
	// +kubebuilder:validation:XValidation:rule="!oldSelf.hasValue() || oldSelf.value() == self",optionalOldSelf=true
	// +optional
	Rules string `json:"rules,omitempty"`
	// Frozen cannot change once set.
	// +k8s:immutable
	// +optional
	Frozen string `json:"frozen,omitempty"`
	// Fixed cannot change.
	// +k8s:immutable
	Fixed string `json:"fixed"`
	// Level is one of three numbers.
	// +kubebuilder:validation:Enum=1;2;3
	Level int32 `json:"level"`
	// Labels merge as a whole.
	// +mapType=atomic
	// +optional
	Labels map[string]string `json:"labels,omitempty"`
	// Choice merges as a whole.
	// +structType=atomic
	Choice Choice `json:"choice"`
	// Phase is an enum type.
	// +optional
	Phase Phase `json:"phase,omitempty"`
	// Timeout is a duration.
	// +optional
	Timeout *metav1.Duration `json:"timeout,omitempty"`
	// Config is any object.
	// +optional
	Config runtime.RawExtension `json:"config,omitempty"`
	// Port is a number or a name.
	// +kubebuilder:validation:XIntOrString
	// +optional
	Port intstr.IntOrString `json:"port,omitempty"`
	// Data is bytes.
	// +optional
	Data []byte `json:"data,omitempty"`
	// Matrix is a list of lists.
	// +optional
	Matrix [][]int32 `json:"matrix,omitempty"`
	// Counts maps names to numbers.
	// +optional
	Counts map[string]uint16 `json:"counts,omitempty"`
	// Conditions are metav1 conditions.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// Skipped is not serialized.
	Skipped string `json:"-"`
	// Explicit is required although it has omitempty.
	// +required
	Explicit string `json:"explicit,omitempty"`
	// Relaxed is optional although it has no omitempty.
	// +kubebuilder:validation:Optional
	Relaxed string `json:"relaxed"`
	// Declared are required in Kubernetes' declarative validation's sense: present and not zero.
	// +k8s:required
	DeclaredName string `json:"declaredName"`
	// +k8s:required
	// +kubebuilder:validation:MinLength=3
	DeclaredCode string `json:"declaredCode"`
	// +k8s:required
	DeclaredList []string `json:"declaredList"`
	// +k8s:required
	DeclaredMap map[string]string `json:"declaredMap"`
	// +k8s:required
	DeclaredDefault NestedDefault `json:"declaredDefault"`
	// +k8s:required
	DeclaredCount int32 `json:"declaredCount"`
}

// NestedDefault is the type of a defaulted field.
type NestedDefault struct {
	Name  string  `json:"name"`
	Items []int32 `json:"items"`
}

// WidgetStatus is the observed state.
type WidgetStatus struct {
	// Replicas is observed.
	// +optional
	Replicas int32 `json:"replicas,omitempty"`
	// Selector selects the pods.
	// +optional
	Selector string `json:"selector,omitempty"`
}

// Widget has every marker of a kind.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.zero,statuspath=.status.replicas,selectorpath=.status.selector
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.spec.phase`,description="The phase.",priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:selectablefield:JSONPath=`.spec.phase`
// +kubebuilder:metadata:labels="example.com/kind=widget"
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   WidgetSpec   `json:"spec"`
	Status WidgetStatus `json:"status,omitempty"`
}

// WidgetList is a list of Widgets.
//
// +kubebuilder:object:root=true
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Widget `json:"items"`
}

// Gadget is the old version of a Gadget, no longer served.
//
// +kubebuilder:object:root=true
// +kubebuilder:unservedversion
// +kubebuilder:deprecatedversion:warning="v1 Gadgets are going away"
// +kubebuilder:resource:path=gadgetry,singular=gizmo,shortName=gd;gdt,categories=toys,scope=Cluster
type Gadget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Size is the gadget's size.
	Size int32 `json:"size"`
}

// GadgetList is a list of Gadgets.
//
// +kubebuilder:object:root=true
type GadgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Gadget `json:"items"`
}
