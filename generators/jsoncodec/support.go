package jsoncodec

import (
	"encoding/json"
	"strings"
	"unicode"

	"github.com/apigen-dev/apigen/generators/model"
)

// jsonNumber is encoding/json.Number, a string type encoding/json treats specially.
const jsonNumber = "encoding/json.Number"

// jsonField is one member of a struct's JSON object after embedded structs are inlined.
type jsonField struct {
	// path is the Go selector from the struct to the field ("TypeMeta.Kind").
	path string
	// key is the member's name quoted, HTML-escaped and followed by a colon (`"kind":`).
	key   string
	field *model.Field
}

// analysis answers, for one Generate call, which structs are supported and how their values
// behave; it memoizes its answers.
type analysis struct {
	fields map[*model.Type][]jsonField
	reason map[*model.Type]string // "" for a supported struct
	addr   map[*model.Type]bool
}

func newAnalysis() *analysis {
	return &analysis{fields: map[*model.Type][]jsonField{}, reason: map[*model.Type]string{}, addr: map[*model.Type]bool{}}
}

// hasMethod reports whether name is in t's value (or, with ptr, pointer) method set.
func hasMethod(t *model.Type, name string, ptr bool) bool {
	if ptr {
		return t.PointerMethods[name]
	}
	return t.ValueMethods[name]
}

// jsonMethods reports whether t or *t has any method encoding/json calls.
func jsonMethods(t *model.Type) bool {
	for _, m := range []string{"MarshalJSON", "UnmarshalJSON", "MarshalText", "UnmarshalText"} {
		if t.ValueMethods[m] || t.PointerMethods[m] {
			return true
		}
	}
	return t.Name.String() == jsonNumber
}

// supported reports whether struct t gets a generated codec, and why not.
func (a *analysis) supported(t *model.Type) (bool, string) {
	if t.Kind != model.Struct {
		return false, "not a struct"
	}
	if _, done := a.reason[t]; !done {
		a.reason[t] = "in progress" // an embedding cycle is impossible in Go; be safe
		fields, reason := a.flatten(t)
		a.fields[t], a.reason[t] = fields, reason
	}
	return a.reason[t] == "", a.reason[t]
}

// flatten lists t's JSON members in encoding/json's order, inlining embedded structs.
func (a *analysis) flatten(t *model.Type) ([]jsonField, string) {
	if jsonMethods(t) {
		return nil, "it has JSON or text marshalling methods"
	}
	if t.EmbedsUnexported {
		return nil, "it has an unexported embedded field"
	}
	var out []jsonField
	for _, f := range t.Fields {
		if f.JSONName == "-" {
			continue
		}
		if f.JSONString {
			return nil, "field " + f.Name + " has the ,string option"
		}
		if _, _, ok := omitZero(f, ""); !ok {
			return nil, "field " + f.Name + " has the ,omitzero option on a struct or array without IsZero"
		}
		if f.JSONName == "" && !f.Embedded {
			return nil, "field " + f.Name + " is not embedded but tagged ,inline"
		}
		if f.JSONName == "" {
			if f.Type.Kind != model.Named || f.Type.Named.Kind != model.Struct {
				return nil, "embedded field " + f.Name + " is not a struct"
			}
			if ok, reason := a.supported(f.Type.Named); !ok {
				return nil, "embedded " + f.Name + ": " + reason
			}
			for _, inner := range a.fields[f.Type.Named] {
				inner.path = f.Name + "." + inner.path
				out = append(out, inner)
			}
			continue
		}
		if !validTag(f.JSONName) {
			return nil, "field " + f.Name + " has an invalid json name"
		}
		key, _ := json.Marshal(f.JSONName)
		out = append(out, jsonField{path: f.Name, key: string(key) + ":", field: f})
	}
	seen := map[string]bool{}
	for _, f := range out {
		if seen[f.key] {
			return nil, "two fields are named " + strings.TrimSuffix(f.key, ":")
		}
		seen[f.key] = true
	}
	return out, ""
}

// validTag is encoding/json's isValidTag: a name it does not accept is replaced by the Go name.
func validTag(s string) bool {
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return s != ""
}

// needsAddr reports whether encoding/json writes a value of ref differently when it is not
// addressable (a map value): some type reached by value has marshalling methods on its
// pointer only.
func (a *analysis) needsAddr(ref *model.TypeRef) bool {
	switch ref.Kind {
	case model.Array:
		return a.needsAddr(ref.Elem)
	case model.Named:
		return a.namedNeedsAddr(ref.Named)
	}
	return false
}

func (a *analysis) namedNeedsAddr(t *model.Type) bool {
	if v, ok := a.addr[t]; ok {
		return v
	}
	a.addr[t] = false // cycles pass through pointers, slices or maps, which are addressable
	v := false
	for _, m := range []string{"MarshalJSON", "MarshalText"} {
		v = v || t.PointerMethods[m] && !t.ValueMethods[m]
	}
	switch {
	case v:
	case t.Kind == model.Struct:
		for _, f := range t.Fields {
			if f.JSONName != "-" && a.needsAddr(f.Type) {
				v = true
			}
		}
	case t.Underlying != nil:
		v = a.needsAddr(t.Underlying)
	}
	a.addr[t] = v
	return v
}

// stringKey reports whether a map key of type ref is written and read as the string it is:
// a string kind without text marshalling methods.
func stringKey(ref *model.TypeRef) bool {
	switch ref.Kind {
	case model.Basic:
		return ref.Basic == "string"
	case model.Named:
		t := ref.Named
		return !jsonMethods(t) && t.Underlying != nil && t.Underlying.Kind == model.Basic && t.Underlying.Basic == "string"
	}
	return false
}

// byteElem reports whether a slice of ref is a byte slice to encoding/json (base64).
func byteElem(ref *model.TypeRef) bool {
	if ref.Kind == model.Named && ref.Named.Underlying != nil {
		ref = ref.Named.Underlying
	}
	return ref.Kind == model.Basic && (ref.Basic == "uint8" || ref.Basic == "byte")
}
