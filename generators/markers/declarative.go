package markers

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/gengo/v2/codetags"

	"github.com/apigen-dev/apigen/generators/model"
)

// keyValueFamilies are the +k8s: markers of code-generator's gengo key=value grammar
// (+k8s:conversion-gen=<import path>, ...), which are not function-style codetags.
var keyValueFamilies = []string{"k8s:deepcopy-gen", "k8s:conversion-gen", "k8s:conversion-fn", "k8s:defaulter-gen",
	"k8s:openapi-gen", "k8s:openapi-model-package", "k8s:prerelease-lifecycle-gen", "k8s:protobuf", "k8s:validation:"}

// IsCodetag reports whether a marker body (the text after "+") is a function-style
// Kubernetes codetag (+k8s:minimum=0, +k8s:ifEnabled(X)=+k8s:maxItems=10,
// +k8s:unionMember(union: "u")), which gengo's codetags grammar parses.
func IsCodetag(body string) bool {
	if !strings.HasPrefix(body, "k8s:") {
		return false
	}
	for _, f := range keyValueFamilies {
		if strings.HasPrefix(body, f) {
			return false
		}
	}
	return true
}

// parseCodetag parses a function-style +k8s: marker with gengo's codetags, the reference
// parser of Kubernetes' declarative validation tags, recording its error; nil on error.
func (s *State) parseCodetag(body string) *codetags.Tag {
	tag, err := codetags.Parse(body)
	if err != nil {
		s.errorf("+%s: %v (as gengo's codetags parses it)", strings.TrimSpace(body), err)
		return nil
	}
	return &tag
}

// updateConstraints are the values +k8s:update takes.
var updateConstraints = []string{"NoSet", "NoUnset", "NoModify", "NoAddItem", "NoRemoveItem"}

// Update is +k8s:update=<constraint>, accumulated.
func Update(s *State, raw string) error {
	v, err := unquote(raw)
	if err != nil {
		return err
	}
	if !slices.Contains(updateConstraints, v) {
		return fmt.Errorf("the value must be one of %s, not %q", strings.Join(updateConstraints, ", "), v)
	}
	if !slices.Contains(s.m.Validation.Update, v) {
		s.m.Validation.Update = append(s.m.Validation.Update, v)
	}
	return nil
}

// NEQ is +k8s:neq=<value>, accumulated as JSON.
func NEQ(s *State, raw string) error {
	j, err := markerValueJSON(raw)
	if err != nil {
		return err
	}
	s.m.Validation.NEQ = append(s.m.Validation.NEQ, j)
	return nil
}

// Unique is +k8s:unique=set|map.
func Unique(s *State, raw string) error {
	v, err := unquote(raw)
	if err != nil {
		return err
	}
	if v != "set" && v != "map" {
		return fmt.Errorf("the value must be set or map, not %q", v)
	}
	if err := s.record("unique", v); err != nil {
		return err
	}
	s.m.Validation.Unique = v
	return nil
}

// Nested returns an ApplyFunc parsing the marker in raw (+k8s:eachVal=+k8s:minimum=1) into
// the Validation get returns, created on first use: what +k8s:eachVal and +k8s:eachKey apply
// to every item, value or key.
func Nested(marker string, get func(*model.Validation) **model.Validation) ApplyFunc {
	return func(s *State, raw string) error {
		inner := strings.TrimSpace(raw)
		if !strings.HasPrefix(inner, "+") {
			return fmt.Errorf("the value must be a marker, as +%s=+k8s:minimum=1", marker)
		}
		return s.applyInto(get(&s.m.Validation), func(sub *State) { sub.parseOne(inner[1:]) })
	}
}

// Items returns the ApplyFunc of +kubebuilder:validation:items:<Name>: the marker
// kubebuilder:validation:<Name> applied to every item (Validation.Items).
func Items(fn ApplyFunc) ApplyFunc {
	return func(s *State, raw string) error {
		return s.applyInto(&s.m.Validation.Items, func(sub *State) {
			if err := fn(sub, raw); err != nil {
				sub.errorf("+%s: %v", strings.TrimSpace(strings.TrimSpace(sub.line.Text)[1:]), err)
			}
		})
	}
}

// applyInto parses into a fresh state and merges its validation into *dst.
func (s *State) applyInto(dst **model.Validation, parse func(sub *State)) error {
	sub := &State{reg: s.reg, m: &model.Markers{}, seen: map[string]seenValue{}, line: s.line}
	if *dst != nil {
		sub.m.Validation = **dst
	}
	parse(sub)
	s.diags = append(s.diags, sub.diags...)
	v := sub.m.Validation
	*dst = &v
	return nil
}

// UnionMember is +k8s:unionMember[(union: "<name>", memberName: "<value>")].
func UnionMember(s *State, _ string) error {
	if s.tag == nil {
		return nil // the codetag did not parse; already reported
	}
	m := &model.UnionMember{}
	for _, a := range s.tag.Args {
		switch a.Name {
		case "union":
			m.Union = a.Value
		case "memberName":
			m.MemberName = a.Value
		default:
			return fmt.Errorf("unknown argument %q (known: union, memberName)", a.Name)
		}
	}
	s.m.Validation.UnionMember = m
	return nil
}

// UnionDiscriminator is +k8s:unionDiscriminator[(union: "<name>")].
func UnionDiscriminator(s *State, _ string) error {
	if s.tag == nil {
		return nil
	}
	name := ""
	for _, a := range s.tag.Args {
		if a.Name != "union" {
			return fmt.Errorf("unknown argument %q (known: union)", a.Name)
		}
		name = a.Value
	}
	s.m.Validation.UnionDiscriminator = &name
	return nil
}

// OneOf returns the ApplyFunc of controller-tools' type-level
// +kubebuilder:validation:<name> for name AtMostOneOf, ExactlyOneOf or AtLeastOneOf ({a,b} or
// a;b, JSON field names): the CEL rule and message controller-tools writes into the schema,
// kept aside until Parse appends them after the XValidation rules, in controller-tools' order.
// It panics on another name.
func OneOf(name string) ApplyFunc {
	order := slices.IndexFunc(oneOfDefs, func(d oneOfDef) bool { return d.name == name })
	if order < 0 {
		panic("markers.OneOf: no one-of marker " + name)
	}
	rule := oneOfDefs[order].rule
	return func(s *State, raw string) error {
		fields, err := parseList(raw)
		if err != nil {
			return err
		}
		if len(fields) < 2 {
			return fmt.Errorf("name at least two fields, as {a,b}")
		}
		expr, msg := rule(fields)
		s.oneOf[order] = append(s.oneOf[order], model.ValidationRule{Rule: expr, Message: msg, Reason: "FieldValueInvalid", Pos: s.line.Pos})
		return nil
	}
}

// oneOfSum is controller-tools' fieldsToOneOfSumExpr: (has(self.a)?1:0)+(has(self.b)?1:0).
func oneOfSum(fields []string) string {
	terms := make([]string, len(fields))
	for i, f := range fields {
		terms[i] = "(has(self." + f + ")?1:0)"
	}
	return strings.Join(terms, "+")
}

// oneOfDef is a one-of marker's name and its CEL rule and message for the fields it names.
type oneOfDef struct {
	name string
	rule func([]string) (string, string)
}

// oneOfDefs are the one-of markers in the order controller-tools applies them.
var oneOfDefs = []oneOfDef{
	{"AtMostOneOf", func(f []string) (string, string) {
		return oneOfSum(f) + " <= 1", fmt.Sprintf("at most one of the fields in %v may be set", f)
	}},
	{"ExactlyOneOf", func(f []string) (string, string) {
		return oneOfSum(f) + " == 1", fmt.Sprintf("exactly one of the fields in %v must be set", f)
	}},
	{"AtLeastOneOf", func(f []string) (string, string) {
		terms := make([]string, len(f))
		for i, x := range f {
			terms[i] = "has(self." + x + ")"
		}
		return strings.Join(terms, "||"), fmt.Sprintf("at least one of the fields in %v must be set", f)
	}},
}

// ZeroOrOneOfMember is +k8s:zeroOrOneOfMember[(union: "<name>")]: a member of a union of
// which at most one may be set.
func ZeroOrOneOfMember(s *State, raw string) error {
	if err := UnionMember(s, raw); err != nil || s.m.Validation.UnionMember == nil {
		return err
	}
	s.m.Validation.UnionMember.ZeroOrOne = true
	return nil
}

// EnumMarker returns the ApplyFunc of +enum or +k8s:enum on a type.
func EnumMarker(name string) ApplyFunc {
	return func(s *State, _ string) error {
		s.m.EnumMarker = name
		return nil
	}
}
