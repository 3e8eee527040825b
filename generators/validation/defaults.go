package validation

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/apigen-dev/apigen/generators/model"
	"github.com/apigen-dev/apigen/runtime/validation"
)

// checkDefaults records a diagnostic for every field of t whose default violates the
// field's own constraints, or those of the named scalar type it has (an enum on `type Engine
// string`), as kube-apiserver rejects a CRD whose defaults do not validate.
func (g *pkgGen) checkDefaults(t *model.Type) {
	for _, f := range t.Fields {
		if f.Markers.Default == nil {
			continue
		}
		ref := f.Type
		if ref.Kind == model.Pointer {
			ref = ref.Elem
		}
		var value any
		dec := json.NewDecoder(strings.NewReader(*f.Markers.Default))
		dec.UseNumber()
		if err := dec.Decode(&value); err != nil {
			continue // the defaulting generator reports defaults that are not JSON
		}
		violations := violated(&f.Markers.Validation, value)
		if ref.Kind == model.Named && ref.Named.Kind == model.Basic {
			violations = append(violations, violated(&ref.Named.Markers.Validation, value)...)
		}
		for _, v := range violations {
			g.diag(f.Pos, "default %s of %s.%s violates +kubebuilder:validation:%s", *f.Markers.Default, t.Name.Name, f.Name, v)
		}
	}
}

// violated returns the markers of v that value (decoded with UseNumber) violates, rendered
// as written ("Maximum=9").
func violated(v *model.Validation, value any) []string {
	var out []string
	switch x := value.(type) {
	case json.Number:
		n, err := x.Float64()
		if err != nil {
			return nil
		}
		out = numberViolations(v, n)
	case string:
		out = stringViolations(v, x)
	}
	if len(v.Enum) > 0 && !inEnum(v.Enum, value) {
		out = append(out, "Enum="+enumString(v.Enum))
	}
	return out
}

func numberViolations(v *model.Validation, n float64) []string {
	var out []string
	num := func(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
	if m := v.Minimum; m != nil && (n < *m || (v.ExclusiveMinimum && n == *m)) {
		out = append(out, exclusive("Minimum", num(*m), v.ExclusiveMinimum))
	}
	if m := v.Maximum; m != nil && (n > *m || (v.ExclusiveMaximum && n == *m)) {
		out = append(out, exclusive("Maximum", num(*m), v.ExclusiveMaximum))
	}
	if m := v.MultipleOf; m != nil && *m > 0 {
		if q := n / *m; q != float64(int64(q)) {
			out = append(out, "MultipleOf="+num(*m))
		}
	}
	return out
}

func exclusive(name, bound string, excl bool) string {
	if excl {
		return fmt.Sprintf("%s=%s (exclusive)", name, bound)
	}
	return name + "=" + bound
}

func stringViolations(v *model.Validation, s string) []string {
	var out []string
	n := int64(utf8.RuneCountInString(s))
	if v.MinLength != nil && n < *v.MinLength {
		out = append(out, fmt.Sprintf("MinLength=%d", *v.MinLength))
	}
	if v.MaxLength != nil && n > *v.MaxLength {
		out = append(out, fmt.Sprintf("MaxLength=%d", *v.MaxLength))
	}
	if v.Pattern != "" {
		if re, err := regexp.Compile(v.Pattern); err == nil && !re.MatchString(s) {
			out = append(out, "Pattern=`"+v.Pattern+"`")
		}
	}
	if v.Format != "" && validation.FormatError(v.Format, s) != nil {
		out = append(out, "Format="+v.Format)
	}
	return out
}

// inEnum reports whether value is one of the JSON values of enum, comparing canonical JSON.
func inEnum(enum []string, value any) bool {
	want, err := json.Marshal(value)
	if err != nil {
		return true
	}
	for _, raw := range enum {
		var v any
		dec := json.NewDecoder(strings.NewReader(raw))
		dec.UseNumber()
		if dec.Decode(&v) != nil {
			continue
		}
		if got, err := json.Marshal(v); err == nil && bytes.Equal(got, want) {
			return true
		}
	}
	return false
}

// enumString renders enum values as the marker takes them: a;b, strings unquoted.
func enumString(enum []string) string {
	vals := make([]string, len(enum))
	for i, raw := range enum {
		vals[i] = raw
		var s string
		if json.Unmarshal([]byte(raw), &s) == nil {
			vals[i] = s
		}
	}
	return strings.Join(vals, ";")
}
