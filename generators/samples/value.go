package samples

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/lucasjones/reggen"
	apiext "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// sampler makes the values of one sample and collects what it could not make.
type sampler struct {
	problems []string
}

// formatValues are a value of each string format a CRD checks (kube-openapi's strfmt registry).
var formatValues = map[string]string{
	"date-time": "2026-01-01T00:00:00Z", "date": "2026-01-01", "duration": "1h",
	"k8s-long-name": "sample", "k8s-short-name": "sample", "hostname": "sample.example.com",
	"ipv4": "192.0.2.1", "ipv6": "2001:db8::1", "cidr": "192.0.2.0/24", "mac": "02:00:00:00:00:01",
	"uri": "https://example.com/sample", "email": "sample@example.com",
	"uuid": "00000000-0000-4000-8000-000000000001", "byte": "c2FtcGxl", "password": "sample",
}

// value returns the smallest value p accepts (the index-0 variant), false when there is none
// (a problem is recorded at path).
func (s *sampler) value(p *apiext.JSONSchemaProps, path string) (any, bool) {
	return s.variant(p, path, 0)
}

// variant returns the i-th of distinct values p accepts, for the items of sets and the keys
// of list maps: the i-th enum value, i steps above the smallest number, or the string with i
// appended. Variants past the first are not re-checked against maxLength or the pattern.
func (s *sampler) variant(p *apiext.JSONSchemaProps, path string, i int) (any, bool) {
	if i == 0 && p.Default != nil {
		var v any
		if err := json.Unmarshal(p.Default.Raw, &v); err == nil {
			return v, true
		}
	}
	if len(p.Enum) > 0 {
		var v any
		if err := json.Unmarshal(p.Enum[i%len(p.Enum)].Raw, &v); err == nil {
			return v, true
		}
	}
	switch {
	case p.XIntOrString:
		if p.Pattern != "" {
			return s.str(p, path, i)
		}
		return int64(i), true
	case p.XEmbeddedResource:
		return map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "sample"}}, true
	}
	switch p.Type {
	case "object":
		return s.object(p, path, i), true
	case "array":
		return s.list(p, path), true
	case "string":
		return s.str(p, path, i)
	case "integer":
		return s.integer(p, i), true
	case "number":
		return s.number(p, i), true
	case "boolean":
		return i%2 == 1, true
	case "":
		if p.XPreserveUnknownFields != nil && *p.XPreserveUnknownFields {
			return map[string]any{}, true
		}
	}
	s.problems = append(s.problems, path+" (a schema without a type)")
	return nil, false
}

// object returns p's required properties, then optional ones (by name) or map keys up to
// minProperties; for i > 0 each key property of a list map (all required ones) gets variant i.
func (s *sampler) object(p *apiext.JSONSchemaProps, path string, i int) map[string]any {
	m := map[string]any{}
	for _, name := range p.Required {
		if prop, ok := p.Properties[name]; ok {
			if v, ok := s.variant(&prop, path+"."+name, i); ok {
				m[name] = v
			}
		}
	}
	want := 0
	if p.MinProperties != nil {
		want = int(*p.MinProperties)
	}
	names := make([]string, 0, len(p.Properties))
	for name := range p.Properties {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if len(m) >= want {
			break
		}
		if _, ok := m[name]; !ok {
			prop := p.Properties[name]
			if v, ok := s.value(&prop, path+"."+name); ok {
				m[name] = v
			}
		}
	}
	s.oneOf(p, path, m)
	if add := p.AdditionalProperties; add != nil && add.Schema != nil {
		for n := 1; len(m) < want; n++ {
			key := fmt.Sprintf("key%d", n)
			if v, ok := s.value(add.Schema, path+"."+key); ok {
				m[key] = v
			} else {
				break
			}
		}
	}
	return m
}

// oneOfRE matches the rules of controller-tools' ExactlyOneOf, AtLeastOneOf and AtMostOneOf
// markers as generators/crd writes them: (has(self.a)?1:0)+(has(self.b)?1:0) == 1.
var (
	oneOfRE    = regexp.MustCompile(`^(\(has\(self\.\w+\)\?1:0\)\+?)+ (==|>=|<=) 1$`)
	oneOfField = regexp.MustCompile(`has\(self\.(\w+)\)`)
)

// oneOf sets, in m, fields of p so that every ExactlyOneOf and AtLeastOneOf rule has one and
// no ExactlyOneOf or AtMostOneOf rule has two, earlier fields of a rule preferred. Other CEL
// rules are not solved.
func (s *sampler) oneOf(p *apiext.JSONSchemaProps, path string, m map[string]any) {
	type rule struct {
		fields  []string
		atLeast bool // == 1 or >= 1
		atMost  bool // == 1 or <= 1
	}
	var rules []rule
	for _, r := range p.XValidations {
		sub := oneOfRE.FindStringSubmatch(r.Rule)
		if sub == nil {
			continue
		}
		var fields []string
		for _, f := range oneOfField.FindAllStringSubmatch(r.Rule, -1) {
			fields = append(fields, f[1])
		}
		rules = append(rules, rule{fields, sub[2] != "<=", sub[2] != ">="})
	}
	set := func(f string) bool { _, ok := m[f]; return ok }
	forbidden := func(f string) bool {
		for _, r := range rules {
			if r.atMost && slices.Contains(r.fields, f) && slices.ContainsFunc(r.fields, set) {
				return true
			}
		}
		return false
	}
	// Choose by backtracking, in rule and field order: the rules are few and short.
	var solve func(i int) bool
	solve = func(i int) bool {
		if i == len(rules) {
			return true
		}
		r := rules[i]
		if !r.atLeast || slices.ContainsFunc(r.fields, set) {
			return solve(i + 1)
		}
		for _, f := range r.fields {
			prop, ok := p.Properties[f]
			if !ok || forbidden(f) {
				continue
			}
			v, ok := s.value(&prop, path+"."+f)
			if !ok {
				continue
			}
			m[f] = v
			if solve(i + 1) {
				return true
			}
			delete(m, f)
		}
		return false
	}
	solve(0)
}

// list returns minItems items of p, each a distinct variant.
func (s *sampler) list(p *apiext.JSONSchemaProps, path string) []any {
	out := []any{}
	if p.MinItems == nil || p.Items == nil || p.Items.Schema == nil {
		return out
	}
	for i := range int(*p.MinItems) {
		v, ok := s.variant(p.Items.Schema, fmt.Sprintf("%s[%d]", path, i), i)
		if !ok {
			break
		}
		out = append(out, v)
	}
	return out
}

// str returns a string of p's format, else matching its pattern, else "sample" fitted to
// minLength and maxLength; variant i > 0 has i appended.
func (s *sampler) str(p *apiext.JSONSchemaProps, path string, i int) (any, bool) {
	suffix := ""
	if i > 0 {
		suffix = fmt.Sprint(i)
	}
	if v, ok := formatValues[p.Format]; ok && p.Pattern == "" {
		if i > 0 && p.Format == "date-time" {
			return fmt.Sprintf("2026-01-01T00:00:%02dZ", i%60), true
		}
		return v + suffix, true
	}
	lo, hi := 0, math.MaxInt
	if p.MinLength != nil {
		lo = int(*p.MinLength)
	}
	if p.MaxLength != nil {
		hi = int(*p.MaxLength)
	}
	if p.Pattern != "" {
		if v, ok := matching(p.Pattern, lo, hi, i); ok {
			return v, true
		}
		s.problems = append(s.problems, fmt.Sprintf("%s (pattern %q)", path, p.Pattern))
		return nil, false
	}
	v := "sample" + suffix
	if n := utf8.RuneCountInString(v); n < lo {
		v += strings.Repeat("x", lo-n)
	}
	if utf8.RuneCountInString(v) > hi {
		v = string([]rune(v)[:hi])
	}
	return v, true
}

// matching returns the i-th distinct string of lo to hi characters that matches pattern, drawn
// by reggen from a fixed seed (so the sample is the same on every run); false when 200 draws
// found none.
func matching(pattern string, lo, hi, i int) (string, bool) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return "", false
	}
	gen, err := reggen.NewGenerator(pattern)
	if err != nil {
		return "", false
	}
	gen.SetSeed(1)
	var seen []string
	for range 200 {
		v := gen.Generate(max(lo, 3))
		if n := utf8.RuneCountInString(v); n < lo || n > hi || !re.MatchString(v) || slices.Contains(seen, v) {
			continue
		}
		if len(seen) == i {
			return v, true
		}
		seen = append(seen, v)
	}
	return "", false
}

// integer returns the i-th integer above the smallest one within p's bounds nearest zero, a
// multiple of multipleOf.
func (s *sampler) integer(p *apiext.JSONSchemaProps, i int) int64 {
	step := int64(1)
	if p.MultipleOf != nil && *p.MultipleOf >= 1 && *p.MultipleOf == math.Trunc(*p.MultipleOf) {
		step = int64(*p.MultipleOf)
	}
	lo, hi := bounds(p, 1)
	v := math.Max(math.Ceil(lo), math.Min(0, math.Floor(hi)))
	first := int64(math.Ceil(v/float64(step))) * step
	return first + int64(i)*step
}

// number returns the i-th number above the smallest one within p's bounds nearest zero, a
// multiple of multipleOf.
func (s *sampler) number(p *apiext.JSONSchemaProps, i int) float64 {
	lo, hi := bounds(p, 0.5)
	v := math.Max(lo, math.Min(0, hi))
	step := 1.0
	if m := p.MultipleOf; m != nil && *m > 0 {
		step = *m
		v = math.Ceil(v / *m) * *m
	}
	return v + float64(i)*step
}

// bounds returns the inclusive range of p's numbers: minimum and maximum, exclusive ones moved
// by step; unbounded sides are infinite.
func bounds(p *apiext.JSONSchemaProps, step float64) (float64, float64) {
	lo, hi := math.Inf(-1), math.Inf(1)
	if p.Minimum != nil {
		lo = *p.Minimum
		if p.ExclusiveMinimum {
			lo += step
		}
	}
	if p.Maximum != nil {
		hi = *p.Maximum
		if p.ExclusiveMaximum {
			hi -= step
		}
	}
	return lo, hi
}
