package markers

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/apigen-dev/apigen/generators/model"
)

// argSetter sets one named argument of a multi-argument marker from its raw value.
type argSetter func(raw string) error

// applyArgs parses raw as "k=v,..." and calls the setter of each key; an unknown key is an
// error naming the known ones.
func applyArgs(raw string, setters map[string]argSetter) error {
	args, err := parseArgs(raw)
	if err != nil {
		return err
	}
	for _, a := range args {
		set, ok := setters[a.key]
		if !ok {
			known := make([]string, 0, len(setters))
			for k := range setters {
				known = append(known, k)
			}
			sort.Strings(known)
			return fmt.Errorf("unknown argument %q (known: %v)", a.key, known)
		}
		if err := set(a.raw); err != nil {
			return fmt.Errorf("argument %s: %w", a.key, err)
		}
	}
	return nil
}

func str(dst *string) argSetter {
	return func(raw string) (err error) {
		*dst, err = unquote(raw)
		return err
	}
}

func list(dst *[]string) argSetter {
	return func(raw string) (err error) {
		*dst, err = parseList(raw)
		return err
	}
}

// Resource is +kubebuilder:resource:path=...,scope=...,shortName=...,categories=...,singular=...
func Resource(s *State, raw string) error {
	r := &model.ResourceMarker{}
	err := applyArgs(raw, map[string]argSetter{
		"path":       str(&r.Path),
		"scope":      str(&r.Scope),
		"shortName":  list(&r.ShortNames),
		"categories": list(&r.Categories),
		"singular":   str(&r.Singular),
	})
	if err != nil {
		return err
	}
	if r.Scope != "" && r.Scope != "Namespaced" && r.Scope != "Cluster" {
		return fmt.Errorf("scope must be Namespaced or Cluster, not %q", r.Scope)
	}
	if err := s.record("resource", fmt.Sprintf("%+v", *r)); err != nil {
		return err
	}
	s.m.Resource = r
	return nil
}

// Scale is +kubebuilder:subresource:scale:specpath=...,statuspath=...,selectorpath=...
func Scale(s *State, raw string) error {
	sc := &model.Scale{}
	err := applyArgs(raw, map[string]argSetter{
		"specpath":     str(&sc.SpecReplicasPath),
		"statuspath":   str(&sc.StatusReplicasPath),
		"selectorpath": str(&sc.LabelSelectorPath),
	})
	if err != nil {
		return err
	}
	if sc.SpecReplicasPath == "" || sc.StatusReplicasPath == "" {
		return fmt.Errorf("specpath and statuspath are required")
	}
	if err := s.record("scale", fmt.Sprintf("%+v", *sc)); err != nil {
		return err
	}
	s.m.Scale = sc
	return nil
}

// SelectableField is +kubebuilder:selectablefield:JSONPath=`.spec.engine`, a field a field
// selector may name; repeated markers add fields, a repeated path is an error.
func SelectableField(s *State, raw string) error {
	var path string
	if err := applyArgs(raw, map[string]argSetter{"JSONPath": str(&path)}); err != nil {
		return err
	}
	if !strings.HasPrefix(path, ".") || len(path) < 2 || strings.ContainsAny(path, "[]*@$ ") {
		return fmt.Errorf("JSONPath must be a dotted path such as .spec.engine, not %q", path)
	}
	for _, p := range s.m.SelectableFields {
		if p == path {
			return fmt.Errorf("field %s is already selectable", path)
		}
	}
	s.m.SelectableFields = append(s.m.SelectableFields, path)
	return nil
}

// PrintColumn is +kubebuilder:printcolumn:name=...,type=...,JSONPath=...,description=...,format=...,priority=...
func PrintColumn(s *State, raw string) error {
	var c model.PrinterColumn
	err := applyArgs(raw, map[string]argSetter{
		"name":        str(&c.Name),
		"type":        str(&c.Type),
		"JSONPath":    str(&c.JSONPath),
		"description": str(&c.Description),
		"format":      str(&c.Format),
		"priority": func(raw string) error {
			p, err := strconv.ParseInt(raw, 10, 32)
			if err != nil {
				return fmt.Errorf("cannot parse %s as an integer", raw)
			}
			c.Priority = int32(p)
			return nil
		},
	})
	if err != nil {
		return err
	}
	switch c.Type {
	case "integer", "number", "string", "boolean", "date":
	default:
		return fmt.Errorf("type must be one of integer, number, string, boolean, date, not %q", c.Type)
	}
	if c.Name == "" || c.JSONPath == "" {
		return fmt.Errorf("name and JSONPath are required")
	}
	s.m.PrinterColumns = append(s.m.PrinterColumns, c)
	return nil
}

// XValidation is +kubebuilder:validation:XValidation:rule=...,message=...,messageExpression=...,
// reason=...,fieldPath=...,optionalOldSelf=true, as controller-tools' XValidation marker.
func XValidation(s *State, raw string) error {
	r := model.ValidationRule{Pos: s.line.Pos}
	err := applyArgs(raw, map[string]argSetter{
		"rule":              str(&r.Rule),
		"message":           str(&r.Message),
		"messageExpression": str(&r.MessageExpression),
		"reason":            str(&r.Reason),
		"fieldPath":         str(&r.FieldPath),
		"optionalOldSelf": func(raw string) (err error) {
			r.OptionalOldSelf, err = parseBool(raw)
			return err
		},
	})
	if err != nil {
		return err
	}
	if strings.TrimSpace(r.Rule) == "" {
		return fmt.Errorf("rule is required, as rule=\"self.size() > 0\"")
	}
	switch r.Reason {
	case "":
		r.Reason = "FieldValueInvalid"
	case "FieldValueInvalid", "FieldValueForbidden", "FieldValueRequired", "FieldValueDuplicate":
	default:
		return fmt.Errorf("reason must be one of FieldValueInvalid, FieldValueForbidden, FieldValueRequired, FieldValueDuplicate, not %q", r.Reason)
	}
	s.m.Validation.Rules = append(s.m.Validation.Rules, r)
	return nil
}

// CRDMetadata is +kubebuilder:metadata:annotations=<key=value>,labels=<key=value>, the
// metadata of a kind's CustomResourceDefinition; each argument is a list (a;b or {a,b}) and
// repeated markers add entries, as controller-tools' Metadata marker. An annotation without
// "=" is an error, as there.
func CRDMetadata(s *State, raw string) error {
	var annotations, labels []string
	if err := applyArgs(raw, map[string]argSetter{"annotations": list(&annotations), "labels": list(&labels)}); err != nil {
		return err
	}
	for _, a := range annotations {
		if !strings.Contains(a, "=") {
			return fmt.Errorf("annotation %s is not in 'key=value' format", a)
		}
	}
	s.m.CRDAnnotations = append(s.m.CRDAnnotations, annotations...)
	s.m.CRDLabels = append(s.m.CRDLabels, labels...)
	return nil
}
