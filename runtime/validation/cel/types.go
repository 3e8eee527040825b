package cel

import (
	"github.com/google/cel-go/cel"
)

// Type is the shape of the value a rule's self (and oldSelf) stands for, derived from the
// field's Go type and JSON encoding. It decides the CEL type self is declared with, so a rule
// such as `self > 3` on a string field fails to compile rather than at run time.
type Type int

// The shapes a rule's subject can have. The zero value is Dyn.
const (
	// Dyn is any value; rules on it are checked at run time only (int-or-string, Quantity,
	// interface{} and anything else without a fixed JSON shape).
	Dyn Type = iota
	// String is a JSON string (a Go string or a named string type).
	String
	// Int is a JSON integer (any Go integer type), an int in CEL.
	Int
	// Double is a JSON number (float32 or float64), a double in CEL.
	Double
	// Bool is a JSON boolean.
	Bool
	// List is a JSON array (a Go slice or array), list(dyn) in CEL.
	List
	// Object is a JSON object (a Go struct or a map with string keys), map(string, dyn) in CEL:
	// fields are selected with self.name and tested with has(self.name).
	Object
)

var typeNames = [...]string{"dyn", "string", "integer", "number", "boolean", "array", "object"}

// String returns the OpenAPI type name of t ("string", "integer", "number", "boolean",
// "array", "object"), or "dyn"; it is the value Kubernetes reports in an Invalid error of a
// rule that could not be evaluated.
func (t Type) String() string {
	if t >= 0 && int(t) < len(typeNames) {
		return typeNames[t]
	}
	return "dyn"
}

// celType is the CEL declaration of t.
func (t Type) celType() *cel.Type {
	switch t {
	case String:
		return cel.StringType
	case Int:
		return cel.IntType
	case Double:
		return cel.DoubleType
	case Bool:
		return cel.BoolType
	case List:
		return cel.ListType(cel.DynType)
	case Object:
		return cel.MapType(cel.StringType, cel.DynType)
	}
	return cel.DynType
}
