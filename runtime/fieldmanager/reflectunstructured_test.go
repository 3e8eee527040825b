package fieldmanager

import (
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/structured-merge-diff/v6/value"

	"github.com/apigen-dev/apigen/runtime/jsoncodec/jsoncodectest"
)

// shapes has a field of every shape structured-merge-diff's reflection reads differently.
type shapes struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Embedded          `json:",inline"`
	*Pointed          `json:",inline"`

	Str      string                        `json:"str"`
	Named    namedString                   `json:"named,omitempty"`
	Int      int                           `json:"int"`
	Int8     int8                          `json:"int8,omitempty"`
	Uint16   uint16                        `json:"uint16"`
	Uint32   *uint32                       `json:"uint32,omitempty"`
	Float32  float32                       `json:"float32"`
	Float64  *float64                      `json:"float64,omitempty"`
	Bool     bool                          `json:"bool,omitempty"`
	Bytes    []byte                        `json:"bytes"`
	Strings  []string                      `json:"strings"`
	NamedSl  []namedString                 `json:"namedSlice,omitempty"`
	Map      map[string]string             `json:"map"`
	NamedMap namedMap                      `json:"namedMap,omitempty"`
	Structs  map[string]Embedded           `json:"structs,omitempty"`
	List     []Embedded                    `json:"list,omitempty"`
	Ptrs     []*Embedded                   `json:"ptrs,omitempty"`
	Quantity resource.Quantity             `json:"quantity,omitzero"`
	QPtr     *resource.Quantity            `json:"qptr,omitempty"`
	Qs       map[string]resource.Quantity  `json:"qs,omitempty"`
	IntOrStr intstr.IntOrString            `json:"intOrString"`
	IOSPtr   *intstr.IntOrString           `json:"iosPtr,omitempty"`
	Time     metav1.Time                   `json:"time"`
	Raw      runtime.RawExtension          `json:"raw"`
	Any      any                           `json:"any"`
	Anys     map[string]any                `json:"anys,omitempty"`
	Zero     Embedded                      `json:"zero,omitzero"`
	Selector *metav1.LabelSelector         `json:"selector,omitempty"`
	Nested   map[string]map[string][]int64 `json:"nested,omitempty"`
	Skipped  string                        `json:"-"`
	private  string
}

type namedString string

type namedMap map[string]namedString

// Embedded is inlined into shapes and used as a value.
type Embedded struct {
	A string `json:"a,omitempty"`
	B *int64 `json:"b"`
}

// Pointed is inlined into shapes through a pointer.
type Pointed struct {
	P string `json:"p,omitempty"`
}

// TestReflectUnstructuredMatchesReflection holds reflectUnstructured to what
// structured-merge-diff's reflection of the same object reads, on random objects of every
// shape.
func TestReflectUnstructuredMatchesReflection(t *testing.T) {
	f := jsoncodectest.Filler(1)
	for i := range 2000 {
		var obj shapes
		f.Fill(&obj)
		obj.private = "x"
		if i%7 == 0 {
			obj = shapes{}
		}
		got, ok := reflectUnstructured(&obj)
		if !ok {
			t.Fatalf("reflectUnstructured refused %#v", obj)
		}
		v, err := value.NewValueReflect(&obj)
		if err != nil {
			t.Fatal(err)
		}
		if want := v.Unstructured(); !reflect.DeepEqual(got, want) {
			t.Fatalf("object %d:\n got %#v\nwant %#v", i, got, want)
		}
	}
}

// TestReflectUnstructuredRefusesWhatReflectionCannotRead checks that what the reflection
// panics on is left to it.
func TestReflectUnstructuredRefusesWhatReflectionCannotRead(t *testing.T) {
	for _, obj := range []any{
		&struct {
			U uint64 `json:"u"`
		}{},
		&struct {
			A [2]int `json:"a"`
		}{},
		&struct {
			M map[int]string `json:"m"`
		}{M: map[int]string{1: "a"}},
	} {
		if _, ok := reflectUnstructured(obj); ok {
			t.Errorf("reflectUnstructured(%T) accepted", obj)
		}
	}
}
