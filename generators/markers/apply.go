package markers

import (
	"fmt"
	"strings"

	"github.com/apigen-dev/apigen/generators/model"
)

// ApplyFunc is a marker's grammar: it parses the marker's raw value (the text after "=" or
// ":", "" for a bare flag) and sets the model through s, returning what is wrong with the
// value (Registry.Parse reports it at the marker's file:line as "+<marker>: <error>"). The
// functions of this file and its neighbours make the ApplyFuncs generators register with
// their markers (Definition.Apply).
type ApplyFunc func(s *State, raw string) error

// K8sRequired is +k8s:required: required, as +required, and in Kubernetes' declarative
// validation also not zero (validation-gen's Required* checks).
func K8sRequired(s *State, raw string) error {
	if err := Flag("required", func(m *model.Markers) *bool { return &m.Required })(s, raw); err != nil {
		return err
	}
	s.m.NonZero = s.m.Required
	return nil
}

// Genclient is client-gen's +genclient: the type gets typed clients and is a root kind.
func Genclient(s *State, raw string) error {
	if err := Flag("genclient", func(m *model.Markers) *bool { return &m.GenClient })(s, raw); err != nil {
		return err
	}
	s.m.Root = s.m.Root || s.m.GenClient
	return nil
}

// DeepcopyInterfaces marks a type root when it asks deepcopy-gen for runtime.Object.
func DeepcopyInterfaces(s *State, raw string) error {
	for _, iface := range strings.Split(raw, ",") {
		if strings.TrimSpace(iface) == "k8s.io/apimachinery/pkg/runtime.Object" {
			s.m.Root = true
		}
	}
	return nil
}

// Flag returns the ApplyFunc of a boolean marker setting the model field get returns: bare
// or =true sets it, =false clears it; field names the value in conflict messages.
func Flag(field string, get func(*model.Markers) *bool) ApplyFunc {
	return func(s *State, raw string) error {
		b, err := parseBool(raw)
		if err != nil {
			return err
		}
		if err := s.record(field, fmt.Sprint(b)); err != nil {
			return err
		}
		*get(s.m) = b
		return nil
	}
}

// String returns the ApplyFunc of a marker whose value (quoted or bare) is the string get
// returns; field names the value in conflict messages.
func String(field string, get func(*model.Markers) *string) ApplyFunc {
	return func(s *State, raw string) error {
		v, err := unquote(raw)
		if err != nil {
			return err
		}
		if err := s.record(field, v); err != nil {
			return err
		}
		*get(s.m) = v
		return nil
	}
}

// Choice is String for a marker whose value is one of choices; another value is an error
// naming them.
func Choice(field string, choices []string, get func(*model.Markers) *string) ApplyFunc {
	set := String(field, get)
	return func(s *State, raw string) error {
		v, err := unquote(raw)
		if err != nil {
			return err
		}
		if !contains(choices, v) {
			return fmt.Errorf("invalid value %q: must be one of %s", v, strings.Join(choices, ", "))
		}
		return set(s, raw)
	}
}

// Names returns the ApplyFunc of a marker whose value is a list of names ("a,b", "a;b" or
// "{a,b}", quoted or bare) accumulated, without repeats, over repeated markers into the
// slice get returns; check, when set, says what is wrong with one name.
func Names(check func(name string) error, get func(*model.Markers) *[]string) ApplyFunc {
	return func(s *State, raw string) error {
		v, err := unquote(raw)
		if err != nil {
			return err
		}
		v = strings.Trim(v, "{}")
		for _, name := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ';' }) {
			name = strings.TrimSpace(name)
			if name == "" {
				continue
			}
			if check != nil {
				if err := check(name); err != nil {
					return err
				}
			}
			if !contains(*get(s.m), name) {
				*get(s.m) = append(*get(s.m), name)
			}
		}
		if len(*get(s.m)) == 0 {
			return fmt.Errorf("no name given")
		}
		return nil
	}
}

// ValidationFlag is Flag for a field of model.Validation.
func ValidationFlag(field string, get func(*model.Validation) *bool) ApplyFunc {
	return Flag(field, func(m *model.Markers) *bool { return get(&m.Validation) })
}

// ValidationString is String for a field of model.Validation.
func ValidationString(field string, get func(*model.Validation) *string) ApplyFunc {
	return String(field, func(m *model.Markers) *string { return get(&m.Validation) })
}

// Float returns the ApplyFunc of a numeric constraint of model.Validation (Minimum=0.5).
func Float(field string, get func(*model.Validation) **float64) ApplyFunc {
	return func(s *State, raw string) error {
		f, err := parseFloat(raw)
		if err != nil {
			return err
		}
		if err := s.record(field, fmt.Sprint(f)); err != nil {
			return err
		}
		*get(&s.m.Validation) = &f
		return nil
	}
}

// Int returns the ApplyFunc of an integer constraint of model.Validation (MaxLength=63).
func Int(field string, get func(*model.Validation) **int64) ApplyFunc {
	return func(s *State, raw string) error {
		i, err := parseInt(raw)
		if err != nil {
			return err
		}
		if err := s.record(field, fmt.Sprint(i)); err != nil {
			return err
		}
		*get(&s.m.Validation) = &i
		return nil
	}
}

// Enum is +kubebuilder:validation:Enum=a;b (or {a,b}): the allowed values, as JSON.
func Enum(s *State, raw string) error {
	parts, err := parseRawList(raw)
	if err != nil {
		return err
	}
	values := make([]string, 0, len(parts))
	for _, p := range parts {
		j, err := markerValueJSON(p)
		if err != nil {
			return err
		}
		values = append(values, j)
	}
	if err := s.record("enum", strings.Join(values, ",")); err != nil {
		return err
	}
	s.m.Validation.Enum = values
	return nil
}

// ListMapKey is +listMapKey=<key>, accumulated over repeated markers.
func ListMapKey(s *State, raw string) error {
	keys, err := parseList(raw)
	if err != nil {
		return err
	}
	for _, k := range keys {
		if !contains(s.m.ListMapKey, k) {
			s.m.ListMapKey = append(s.m.ListMapKey, k)
		}
	}
	return nil
}

// JSONDefault is gengo's +default=<json>, compacted (ref() defaults are an error).
func JSONDefault(s *State, raw string) error {
	if strings.HasPrefix(strings.TrimSpace(raw), "ref(") {
		return fmt.Errorf("ref() defaults are not supported; write the JSON value")
	}
	j, err := compactJSON(raw)
	if err != nil {
		return err
	}
	return s.setDefault(j)
}

// MarkerDefault is +kubebuilder:default=<marker value>, normalised to JSON.
func MarkerDefault(s *State, raw string) error {
	j, err := markerValueJSON(raw)
	if err != nil {
		return err
	}
	return s.setDefault(j)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
