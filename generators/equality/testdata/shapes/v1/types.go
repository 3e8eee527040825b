package v1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Shape holds every field shape.
type Shape struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Basics     Basics     `json:"basics"`
	Pointers   Pointers   `json:"pointers"`
	Slices     Slices     `json:"slices"`
	Maps       Maps       `json:"maps"`
	Arrays     Arrays     `json:"arrays"`
	Externals  Externals  `json:"externals"`
	Interfaces Interfaces `json:"interfaces"`
	Hidden     Hidden     `json:"hidden"`
	Tree       *Node      `json:"tree,omitempty"`
	Names      Names      `json:"names,omitempty"`
	Settings   Settings   `json:"settings,omitempty"`
	Grid       Grid       `json:"grid"`
}

// Engine is a named string.
type Engine string

// Basics holds basic values.
type Basics struct {
	String  string  `json:"string"`
	Int32   int32   `json:"int32"`
	Int64   int64   `json:"int64"`
	Uint8   uint8   `json:"uint8"`
	Bool    bool    `json:"bool"`
	Float64 float64 `json:"float64"`
	Float32 float32 `json:"float32"`
	Engine  Engine  `json:"engine"`
}

// Inner is a small struct held by pointers, slices and maps.
type Inner struct {
	Name  string   `json:"name"`
	Value float64  `json:"value"`
	Tags  []string `json:"tags,omitempty"`
}

// Pointers holds pointers.
type Pointers struct {
	String   *string            `json:"string,omitempty"`
	Float64  *float64           `json:"float64,omitempty"`
	Engine   *Engine            `json:"engine,omitempty"`
	Inner    *Inner             `json:"inner,omitempty"`
	Quantity *resource.Quantity `json:"quantity,omitempty"`
	Time     *metav1.Time       `json:"time,omitempty"`
	Tags     *[]string          `json:"tags,omitempty"`
	Labels   *map[string]string `json:"labels,omitempty"`
	PtrPtr   **int32            `json:"ptrPtr,omitempty"`
}

// Slices holds slices.
type Slices struct {
	Strings    []string            `json:"strings,omitempty"`
	Floats     []float64           `json:"floats,omitempty"`
	Inners     []Inner             `json:"inners,omitempty"`
	InnerPtrs  []*Inner            `json:"innerPtrs,omitempty"`
	Nested     [][]string          `json:"nested,omitempty"`
	Names      []Names             `json:"names,omitempty"`
	Conditions []metav1.Condition  `json:"conditions,omitempty"`
	Quantities []resource.Quantity `json:"quantities,omitempty"`
	Bytes      []byte              `json:"bytes,omitempty"`
}

// Maps holds maps.
type Maps struct {
	Strings   map[string]string         `json:"strings,omitempty"`
	Floats    map[string]float64        `json:"floats,omitempty"`
	Inners    map[string]Inner          `json:"inners,omitempty"`
	InnerPtrs map[string]*Inner         `json:"innerPtrs,omitempty"`
	Lists     map[string][]string       `json:"lists,omitempty"`
	Nested    map[string]map[int32]bool `json:"nested,omitempty"`
	Times     map[string]metav1.Time    `json:"times,omitempty"`
}

// Arrays holds arrays.
type Arrays struct {
	Int32s [2]int32   `json:"int32s"`
	Inners [2]Inner   `json:"inners"`
	Floats [2]float64 `json:"floats"`
}

// Externals holds types of other packages.
type Externals struct {
	Quantity    resource.Quantity      `json:"quantity"`
	Time        metav1.Time            `json:"time"`
	MicroTime   metav1.MicroTime       `json:"microTime"`
	IntOrString intstr.IntOrString     `json:"intOrString"`
	Selector    *metav1.LabelSelector  `json:"selector,omitempty"`
	Raw         runtime.RawExtension   `json:"raw"`
	Duration    metav1.Duration        `json:"duration"`
	Status      metav1.ConditionStatus `json:"status"`
}

// Interfaces holds interface values.
type Interfaces struct {
	Any  any            `json:"any,omitempty"`
	Anys []any          `json:"anys,omitempty"`
	Map  map[string]any `json:"map,omitempty"`
}

// Hidden has an unexported field, which only the reflection walk sees (and panics on when it
// reaches a value in it).
type Hidden struct {
	Name   string `json:"name"`
	secret []string
}

// SetSecret sets the unexported field.
func (h *Hidden) SetSecret(s []string) { h.secret = s }

// Node is recursive.
type Node struct {
	Name     string `json:"name"`
	Children []Node `json:"children,omitempty"`
	Next     *Node  `json:"next,omitempty"`
}

// Names is a named slice.
type Names []string

// Settings is a named map of structs.
type Settings map[string]Inner

// Grid is a named array.
type Grid [2][2]float32
