package v1

import (
	"bytes"
	"errors"

	"k8s.io/apimachinery/pkg/util/json"
)

// The JSON literals the hand-written (un)marshalers compare with, as upstream's marshal.go.
var (
	jsTrue      = []byte("true")
	jsFalse     = []byte("false")
	nullLiteral = []byte("null")
)

// MarshalJSON writes the schema when set, else the boolean.
func (s JSONSchemaPropsOrBool) MarshalJSON() ([]byte, error) {
	if s.Schema != nil {
		return json.Marshal(s.Schema)
	}
	if !s.Allows {
		return jsFalse, nil
	}
	return jsTrue, nil
}

// UnmarshalJSON reads a schema (Allows true) or a boolean. Errors: any other JSON value.
func (s *JSONSchemaPropsOrBool) UnmarshalJSON(data []byte) error {
	var nw JSONSchemaPropsOrBool
	switch {
	case len(data) == 0:
	case data[0] == '{':
		var sch JSONSchemaProps
		if err := json.Unmarshal(data, &sch); err != nil {
			return err
		}
		nw.Allows = true
		nw.Schema = &sch
	case bytes.Equal(data, jsTrue):
		nw.Allows = true
	case bytes.Equal(data, jsFalse):
		nw.Allows = false
	default:
		return errors.New("boolean or JSON schema expected")
	}
	*s = nw
	return nil
}

// MarshalJSON writes the property list when set, else the schema, else null.
func (s JSONSchemaPropsOrStringArray) MarshalJSON() ([]byte, error) {
	if len(s.Property) > 0 {
		return json.Marshal(s.Property)
	}
	if s.Schema != nil {
		return json.Marshal(s.Schema)
	}
	return nullLiteral, nil
}

// UnmarshalJSON reads a schema or an array of property names; anything else leaves s empty.
func (s *JSONSchemaPropsOrStringArray) UnmarshalJSON(data []byte) error {
	var nw JSONSchemaPropsOrStringArray
	if err := unmarshalSchemaOrArray(data, &nw.Schema, &nw.Property); err != nil {
		return err
	}
	*s = nw
	return nil
}

// MarshalJSON writes the schema array when set, else the single schema (null when unset).
func (s JSONSchemaPropsOrArray) MarshalJSON() ([]byte, error) {
	if len(s.JSONSchemas) > 0 {
		return json.Marshal(s.JSONSchemas)
	}
	return json.Marshal(s.Schema)
}

// UnmarshalJSON reads a schema or an array of schemas; anything else leaves s empty.
func (s *JSONSchemaPropsOrArray) UnmarshalJSON(data []byte) error {
	var nw JSONSchemaPropsOrArray
	if err := unmarshalSchemaOrArray(data, &nw.Schema, &nw.JSONSchemas); err != nil {
		return err
	}
	*s = nw
	return nil
}

// unmarshalSchemaOrArray decodes a JSON object into *schema or a JSON array into array (a
// pointer to a slice), as upstream's JSONSchemaPropsOr* types read their two shapes; any
// other value leaves both unset.
func unmarshalSchemaOrArray(data []byte, schema **JSONSchemaProps, array any) error {
	if len(data) < 2 {
		return nil
	}
	switch data[0] {
	case '{':
		var sch JSONSchemaProps
		if err := json.Unmarshal(data, &sch); err != nil {
			return err
		}
		*schema = &sch
	case '[':
		return json.Unmarshal(data, array)
	}
	return nil
}

// MarshalJSON writes the raw value, or null when empty.
func (s JSON) MarshalJSON() ([]byte, error) {
	if len(s.Raw) > 0 {
		return s.Raw, nil
	}
	return nullLiteral, nil
}

// UnmarshalJSON keeps a copy of data; null leaves s empty.
func (s *JSON) UnmarshalJSON(data []byte) error {
	if len(data) > 0 && !bytes.Equal(data, nullLiteral) {
		s.Raw = append(s.Raw[0:0], data...)
	}
	return nil
}
