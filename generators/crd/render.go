package crd

import (
	"bytes"
	"encoding/json"
	"fmt"

	apiext "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/yaml"

	"github.com/apigen-dev/apigen/generators/emit"
)

// render writes crd as a YAML document the way controller-gen does (genall's WriteYAML): the
// JSON encoding decoded with exact numbers, without status and metadata.creationTimestamp,
// marshalled by sigs.k8s.io/yaml (keys sorted), after a "---" line; the file begins with
// emit.YAMLHeader. Default, example and enum values are first normalised as the CRD
// conversion controller-gen makes (v1 to internal and back) normalises them: decoded (whole
// numbers as integers) and re-encoded (object keys sorted), a null default or example
// dropped. Errors: an encoding failure (a bug) or a value that is not JSON.
func render(crd *apiext.CustomResourceDefinition) ([]byte, error) {
	for i := range crd.Spec.Versions {
		if v := crd.Spec.Versions[i].Schema; v != nil && v.OpenAPIV3Schema != nil {
			var err error
			walk(v.OpenAPIV3Schema, func(s *apiext.JSONSchemaProps) {
				if err == nil {
					err = normalizeValues(s)
				}
			})
			if err != nil {
				return nil, fmt.Errorf("cannot render the CustomResourceDefinition %s: %w", crd.Name, err)
			}
		}
	}
	j, err := json.Marshal(crd)
	if err != nil {
		return nil, fmt.Errorf("cannot encode the CustomResourceDefinition %s: %w", crd.Name, err)
	}
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.UseNumber()
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		return nil, fmt.Errorf("cannot decode the CustomResourceDefinition %s: %w", crd.Name, err)
	}
	delete(obj, "status")
	if meta, ok := obj["metadata"].(map[string]any); ok {
		delete(meta, "creationTimestamp")
	}
	y, err := yaml.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("cannot encode the CustomResourceDefinition %s as YAML: %w", crd.Name, err)
	}
	return append([]byte(emit.YAMLHeader+"\n---\n"), y...), nil
}

// normalizeValues normalises the default, example and enum values of s (see render).
func normalizeValues(s *apiext.JSONSchemaProps) error {
	var err error
	if s.Default, err = normalizeJSON(s.Default); err != nil {
		return err
	}
	if s.Example, err = normalizeJSON(s.Example); err != nil {
		return err
	}
	for i := range s.Enum {
		n, err := normalizeJSON(&s.Enum[i])
		if err != nil {
			return err
		}
		if n == nil {
			n = &apiext.JSON{}
		}
		s.Enum[i] = *n
	}
	return nil
}

// normalizeJSON decodes v as apiextensions' conversion does (k8s.io/apimachinery's json,
// which keeps whole numbers as int64) and re-encodes it; nil for null.
func normalizeJSON(v *apiext.JSON) (*apiext.JSON, error) {
	if v == nil || len(v.Raw) == 0 || string(v.Raw) == "null" {
		return nil, nil
	}
	var x any
	if err := utiljson.Unmarshal(v.Raw, &x); err != nil {
		return nil, fmt.Errorf("value %s is not JSON: %w", v.Raw, err)
	}
	raw, err := json.Marshal(x)
	if err != nil {
		return nil, err
	}
	return &apiext.JSON{Raw: raw}, nil
}
