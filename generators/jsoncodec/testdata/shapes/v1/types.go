package v1

import (
	"encoding/json"
	"errors"
	"strconv"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Shape is a root kind with every supported field shape.
// +kubebuilder:object:root=true
type Shape struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Basics    Basics    `json:"basics"`
	Empty     Empty     `json:"empty"`
	Composite Composite `json:"composite"`
	Methods   Methods   `json:"methods"`
	Fallback  Fallback  `json:"fallback"`
}

// ShapeList is a list of Shapes.
// +kubebuilder:object:root=true
type ShapeList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Shape `json:"items"`
}

// Engine is a named string.
type Engine string

// Ratio is a named float.
type Ratio float32

// Flag is a named bool.
type Flag bool

// Basics has one field of every basic kind, named types of them, a field without a json name
// and one skipped.
type Basics struct {
	Bool    bool    `json:"bool"`
	Int     int     `json:"int"`
	Int8    int8    `json:"int8"`
	Int16   int16   `json:"int16"`
	Int32   int32   `json:"int32"`
	Int64   int64   `json:"int64"`
	Uint    uint    `json:"uint"`
	Uint8   uint8   `json:"uint8"`
	Uint16  uint16  `json:"uint16"`
	Uint32  uint32  `json:"uint32"`
	Uint64  uint64  `json:"uint64"`
	Uintptr uintptr `json:"uintptr"`
	Float32 float32 `json:"float32"`
	Float64 float64 `json:"float64"`
	String  string  `json:"string"`
	Engine  Engine  `json:"engine"`
	Ratio   Ratio   `json:"ratio"`
	Flag    Flag    `json:"flag"`
	NoName  string  `json:",omitempty"`
	Skipped string  `json:"-"`
	HTML    string  `json:"a<b&c>"`
}

// Empty has an omitempty (and some omitzero) field of every kind.
type Empty struct {
	Bool      bool              `json:"bool,omitempty"`
	Int       int               `json:"int,omitempty"`
	Uint16    uint16            `json:"uint16,omitempty"`
	Float32   float32           `json:"float32,omitempty"`
	Float64   float64           `json:"float64,omitempty"`
	String    string            `json:"string,omitempty"`
	Engine    Engine            `json:"engine,omitempty"`
	Pointer   *int32            `json:"pointer,omitempty"`
	Any       any               `json:"any,omitempty"`
	Slice     []string          `json:"slice,omitempty"`
	Map       map[string]string `json:"map,omitempty"`
	Array     [2]int32          `json:"array,omitempty"`
	NoArray   [0]int32          `json:"noArray,omitempty"`
	Struct    Basics            `json:"struct,omitempty"`
	Time      metav1.Time       `json:"time,omitempty"`
	ZeroTime  metav1.Time       `json:"zeroTime,omitzero"`
	ZeroPtr   *metav1.Time      `json:"zeroPtr,omitzero"`
	ZeroInt   int64             `json:"zeroInt,omitzero"`
	ZeroFloat float64           `json:"zeroFloat,omitzero"`
	ZeroSlice []string          `json:"zeroSlice,omitzero"`
	Both      []string          `json:"both,omitempty,omitzero"`
	Quantity  resource.Quantity `json:"quantity,omitempty"`
}

// Names is a named slice; Labels a named map; Tree a named map of itself.
type (
	Names  []string
	Labels map[string]string
	Tree   map[string]Tree
	Raw    []byte
)

// Composite has pointers, slices, maps, arrays and interfaces, nested.
type Composite struct {
	Pointer        *int64                       `json:"pointer"`
	PointerPointer **string                     `json:"pointerPointer"`
	StructPointer  *Basics                      `json:"structPointer"`
	Slice          []string                     `json:"slice"`
	Slices         [][]int32                    `json:"slices"`
	Structs        []Basics                     `json:"structs"`
	StructPointers []*Basics                    `json:"structPointers"`
	Map            map[string]int64             `json:"map"`
	Maps           map[string]map[string]string `json:"maps"`
	MapSlices      map[string][]float64         `json:"mapSlices"`
	MapStructs     map[string]Basics            `json:"mapStructs"`
	MapPointers    map[string]*Basics           `json:"mapPointers"`
	EngineKeys     map[Engine]Ratio             `json:"engineKeys"`
	IntKeys        map[int32]string             `json:"intKeys"`
	Bytes          []byte                       `json:"bytes"`
	Raw            Raw                          `json:"raw"`
	Any            interface{}                  `json:"any"`
	Anys           []interface{}                `json:"anys"`
	AnyMap         map[string]interface{}       `json:"anyMap"`
	Array          [2]int32                     `json:"array"`
	Names          Names                        `json:"names"`
	Labels         Labels                       `json:"labels"`
	LabelsPointer  *Labels                      `json:"labelsPointer"`
	Tree           Tree                         `json:"tree"`
	Recursive      *Composite                   `json:"recursive,omitempty"`
	Children       []Composite                  `json:"children,omitempty"`
	Inline         `json:",inline"`
	Named          Inline `json:"named"`
}

// Inline is embedded in Composite, inlined and once more under a name.
type Inline struct {
	InlineString string  `json:"inlineString"`
	InlineNames  []Names `json:"inlineNames,omitempty"`
}

// Level has a value-receiver MarshalText and a pointer-receiver UnmarshalText.
type Level int

// MarshalText writes the level in decimal.
func (l Level) MarshalText() ([]byte, error) { return []byte(strconv.Itoa(int(l))), nil }

// UnmarshalText reads a decimal level.
func (l *Level) UnmarshalText(b []byte) error {
	n, err := strconv.Atoi(string(b))
	*l = Level(n)
	return err
}

// PtrMarshal has MarshalJSON on its pointer only: encoding/json calls it on addressable
// values but not on map values.
type PtrMarshal struct {
	N int32 `json:"n"`
}

// MarshalJSON writes the number as a string.
func (p *PtrMarshal) MarshalJSON() ([]byte, error) {
	if p.N < 0 {
		return nil, errors.New("negative")
	}
	return []byte(`"` + strconv.Itoa(int(p.N)) + `"`), nil
}

// UnmarshalJSON reads the number from a string, or null.
func (p *PtrMarshal) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	s, err := strconv.Unquote(string(b))
	if err != nil {
		return err
	}
	n, err := strconv.Atoi(s)
	p.N = int32(n)
	return err
}

// HoldsPtrMarshal reaches a PtrMarshal by value.
type HoldsPtrMarshal struct {
	Value PtrMarshal `json:"value"`
}

// Methods has fields of types with JSON and text methods.
type Methods struct {
	Time         metav1.Time                  `json:"time"`
	TimePointer  *metav1.Time                 `json:"timePointer"`
	Times        []metav1.Time                `json:"times"`
	TimeMap      map[string]metav1.Time       `json:"timeMap"`
	MicroTime    metav1.MicroTime             `json:"microTime"`
	Duration     metav1.Duration              `json:"duration"`
	Quantity     resource.Quantity            `json:"quantity"`
	Quantities   map[string]resource.Quantity `json:"quantities"`
	IntOrString  intstr.IntOrString           `json:"intOrString"`
	IntOrStrings []*intstr.IntOrString        `json:"intOrStrings"`
	Level        Level                        `json:"level"`
	LevelKeys    map[Level]string             `json:"levelKeys"`
	Ptr          PtrMarshal                   `json:"ptr"`
	PtrPointer   *PtrMarshal                  `json:"ptrPointer"`
	PtrSlice     []PtrMarshal                 `json:"ptrSlice"`
	PtrMap       map[string]PtrMarshal        `json:"ptrMap"`
	HoldsMap     map[string]HoldsPtrMarshal   `json:"holdsMap"`
	Number       json.Number                  `json:"number"`
	RawMessage   json.RawMessage              `json:"rawMessage"`
	Condition    metav1.Condition             `json:"condition"`
	Selector     *metav1.LabelSelector        `json:"selector,omitempty"`
}

// Fallback has fields of structs that get no generated codec.
type Fallback struct {
	Stringly   Stringly   `json:"stringly"`
	EmbedsPtr  EmbedsPtr  `json:"embedsPtr"`
	Collides   Collides   `json:"collides"`
	Hidden     Hidden     `json:"hidden"`
	ZeroStruct ZeroStruct `json:"zeroStruct"`
	Own        Own        `json:"own"`
	Stamp      Stamp      `json:"stamp"`
	NotInline  NotInline  `json:"notInline"`
}

// Stringly has a ,string field.
type Stringly struct {
	Count int64 `json:"count,string"`
}

// EmbedsPtr embeds a pointer to a struct.
type EmbedsPtr struct {
	*Inline
	Other string `json:"other"`
}

// Collides has two fields named "inlineString" once Inline is inlined.
type Collides struct {
	Inline
	Again string `json:"inlineString"`
}

// Hidden embeds an unexported struct, whose exported fields encoding/json promotes.
type Hidden struct {
	hidden
	Visible string `json:"visible"`
}

type hidden struct {
	Secret string `json:"secret"`
}

// ZeroStruct has omitzero on a struct without IsZero.
type ZeroStruct struct {
	Inner Inline `json:"inner,omitzero"`
}

// Own marshals itself.
type Own struct {
	A string `json:"a"`
}

// MarshalJSON writes A alone.
func (o Own) MarshalJSON() ([]byte, error) { return json.Marshal(o.A) }

// UnmarshalJSON reads A alone.
func (o *Own) UnmarshalJSON(b []byte) error { return json.Unmarshal(b, &o.A) }

// Stamp embeds metav1.Time and so has its methods.
type Stamp struct {
	metav1.Time `json:",inline"`
	Note        string `json:"note"`
}

// NotInline tags a field that is not embedded ",inline", which encoding/json ignores.
type NotInline struct {
	Basics Basics `json:",inline"`
}
