package crddiff

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apimachinery/pkg/api/resource"
)

// divergence is one known, reasoned way apigen differs from the oracle. A difference that no
// row matches fails the test.
type divergence struct {
	category, reason string
	// match reports whether d, a difference of the input c, is this divergence.
	match func(c *input, d difference) bool
}

// notChecked is the detail of the notice apiextensions' strategy adds when schema errors
// block the CEL rules (cel.NotCheckedMessage on apigen's side).
const notChecked = "some validation rules were not checked because the object was invalid"

// divergences are the known divergences, tried in order; the first that matches explains a
// difference.
var divergences = []divergence{
	{
		category: "hand-written validation",
		reason: "example-api's ValidateDatabase hook (apis/db/validation.go) checks spec.backup.schedule as a cron " +
			"expression; no marker says so, so the CRD accepts any string",
		match: func(_ *input, d difference) bool {
			return d.what == "extra" && strings.Contains(str(d.apigen), "must be a cron expression")
		},
	},
	{
		category: "null",
		reason: "apigen decodes null as encoding/json does: a null map value or list item becomes the zero value " +
			"(then validated, counted, compared for uniqueness and stored); the CRD drops nulls of non-nullable fields " +
			"before defaulting and validation (a null required field is then missing: Required value) and rejects a " +
			"null list item; matched where the body has null at or above the difference, or in the list or map it is or is in",
		match: func(c *input, d difference) bool {
			return d.what != "verdict" && d.what != "code" && d.what != "message" &&
				(c.nullAt(d.path) || c.nullInCollection(d.path))
		},
	},
	{
		category: "map value paths",
		reason: "kube-openapi names a map value spec.lines.a (field and message) where field.Path, which apigen and " +
			"the CRD's own CEL and list-type errors use, renders spec.lines[a]",
		match: func(c *input, d difference) bool { return c.mapPathTwin(d) },
	},
	{
		category: "status reset",
		reason: "on create of a kind with a status subresource both servers drop status before validating; the CRD " +
			"deletes the key, apigen resets the Go struct, which encodes as status: {} (encoding/json writes a " +
			"non-pointer struct even when it is empty), with the zero value of each field without omitempty " +
			"(Gateway API's HTTPRoute: status: {parents: null})",
		match: func(_ *input, d difference) bool {
			m, ok := d.apigen.(map[string]any)
			if !ok || d.what != "object" || d.path != "status" || d.oraclePresent {
				return false
			}
			for _, v := range m {
				if !zeroJSON(v) {
					return false
				}
			}
			return true
		},
	},
	{
		category: "typed decoding",
		reason: "apigen decodes into Go types: a value of the wrong JSON type, a date-time metav1.Time cannot parse or " +
			"a quantity resource.ParseQuantity refuses (controller-gen's Quantity pattern admits more, e.g. \"1E.5\") " +
			"fails the decoding with the first error (400), where the CRD validates the schema (422, every cause) or, " +
			"under status, which create drops, accepts any shape; a body that fails decoding never reaches the strict " +
			"unknown-field check",
		match: func(c *input, d difference) bool {
			return (d.what == "code" || d.what == "verdict" || d.what == "message") && c.apigen.code == 400 &&
				!strings.Contains(c.apigen.message, "strict decoding error")
		},
	},
	{
		category: "typed canonical form",
		reason: "resource.Quantity and metav1.Time encode canonically (317 becomes \"317\", \".5Gi\" \"512Mi\", times UTC " +
			"in whole seconds); the CRD stores the value as sent",
		match: func(_ *input, d difference) bool {
			return d.what == "object" && d.oraclePresent && d.apigenPresent && sameQuantityOrTime(d.oracle, d.apigen)
		},
	},
	{
		category: "Go zero values",
		reason: "omitempty drops the empty strings, maps and lists a client sent (the CRD keeps them), and fields without " +
			"omitempty or omitzero encode their zero value (metav1.Time null, resource.Quantity \"0\") where the CRD has no key",
		match: func(c *input, d difference) bool {
			if d.what != "object" || d.oraclePresent == d.apigenPresent {
				return false
			}
			v := d.oracle
			if d.apigenPresent {
				v = d.apigen
			}
			return zeroJSON(v) || c.zeroQuantity(d.path, v)
		},
	},
	{
		category: "typed defaulting",
		reason: "a Go object always holds its non-pointer structs, and defaulting (defaulter-gen's) fills their defaults " +
			"whether or not the request had them: a struct the request left out is created with its defaults (and the " +
			"zero values of fields without omitempty), where the CRD defaults only under present objects; and a present " +
			"zero in an omitempty field with a default is defaulted (the stored object could not hold it: encoding/json " +
			"drops it), where the CRD validates it. A pointer field gives the CRD's behaviour",
		match: func(c *input, d difference) bool {
			switch d.what {
			case "object":
				return !d.oraclePresent && d.apigenPresent && c.absentAt(d.path)
			case "missing", "cause":
				return c.zeroAt(d.path) && c.defaulted(d.path)
			}
			return false
		},
	},
	{
		category: "stored zero struct",
		reason: "an optional non-pointer struct the request left out is still stored (a Go object holds it, encoding/json " +
			"writes it with its zero values and defaults), so apigen validates it as stored, its fields judged by what " +
			"its JSON writes (a required \"\" as present, then too short or not in its enum), where the CRD stores no " +
			"key and validates nothing under it; a pointer field or omitzero gives the CRD's behaviour",
		match: func(c *input, d difference) bool {
			return d.what == "extra" && c.underAbsentObject(d.path)
		},
	},
	{
		category: "Go zero values in rules",
		reason: "CEL rules see the object as it will be stored: a zero value in an omitempty field (\"\", [], {}, 0, " +
			"false) is absent, so has() is false and selecting it is \"no such key\", where the CRD's rules see the " +
			"value the client sent (Gateway API: tls.certificateRefs: [], a Hostname address with value \"\", a rule's " +
			"matches: []); matched for a rule's message where the body holds such a zero at or below the difference",
		match: func(c *input, d difference) bool {
			return (d.what == "missing" || d.what == "extra" || d.what == "cause") && c.zeroWithin(d.path) &&
				ruleMessage(str(d.oracle)+str(d.apigen))
		},
	},
	{
		category: "null under rules",
		reason: "the CRD reports a null list item or non-nullable value as a type error, which keeps every CEL rule from " +
			"running; apigen decodes the null as the zero value (the \"null\" row), which need not block, so its rules " +
			"run and report; matched for a rule's error apigen alone reports where the body has a null and the oracle " +
			"gave the not-checked notice",
		match: func(c *input, d difference) bool {
			return d.what == "extra" && ruleMessage(str(d.apigen)) && hasNull(c.object) && c.oracle.notChecked()
		},
	},
	{
		category: "hand-written decoding",
		reason: "a type with its own UnmarshalJSON decodes itself (Gateway API's SupportedFeature, which also takes the " +
			"older string form, through encoding/json): an unknown field under it is ignored, where the CRD's strict " +
			"decoding reports it",
		match: func(c *input, d difference) bool {
			return d.what == "verdict" && strings.Contains(c.oracle.message, `strict decoding error: unknown field "status.supportedFeatures[`)
		},
	},
	{
		category: "CEL gate",
		reason: "the notice that blocking errors kept the CEL rules from running is reported when the blocking errors " +
			"are; it differs where those errors differ, for a reason another row of the same input gives",
		match: func(c *input, d difference) bool {
			return (d.what == "missing" || d.what == "extra") && d.path == "<nil>" &&
				strings.Contains(str(d.oracle)+str(d.apigen), notChecked) && c.otherExplained(d)
		},
	},
}

// str is v as a string, "" when it is not one.
func str(v any) string {
	s, _ := v.(string)
	return s
}

// segment matches one element of a field path: a name, or [index or key].
var segment = regexp.MustCompile(`[^.\[\]]+|\[[^\]]*\]`)

// splitPath splits a field path (spec.tools[0].name, spec.lines[a], spec.lines.a, .spec.x)
// into keys (string) and list indices (int); "<nil>" is the root.
func splitPath(path string) []any {
	if path == "<nil>" {
		return nil
	}
	var out []any
	for _, s := range segment.FindAllString(path, -1) {
		if strings.HasPrefix(s, "[") {
			s = strings.Trim(s, "[]")
			if i, err := strconv.Atoi(s); err == nil {
				out = append(out, i)
				continue
			}
		}
		out = append(out, s)
	}
	return out
}

// at returns the value of the request body at path: the value, whether it is there, and
// whether it or an ancestor is null.
func (c *input) at(path string) (v any, present, null bool) {
	var cur any = c.object
	for _, el := range splitPath(path) {
		if cur == nil {
			return nil, false, true
		}
		switch node := cur.(type) {
		case map[string]any:
			k, _ := el.(string)
			if k == "" {
				k = strconv.Itoa(el.(int))
			}
			if cur, present = node[k]; !present {
				return nil, false, false
			}
		case []any:
			i, ok := el.(int)
			if !ok || i >= len(node) {
				return nil, false, false
			}
			cur = node[i]
		default:
			return nil, false, false
		}
	}
	return cur, true, cur == nil
}

// nullAt reports whether the body has null at path or above it.
func (c *input) nullAt(path string) bool { _, _, null := c.at(path); return null }

// nullInCollection reports whether path is a list, a map, or an item of one, and the body
// has null in that list or map (a null item or map value changes the count, the uniqueness
// and the items apigen sees).
func (c *input) nullInCollection(path string) bool {
	for _, p := range []string{path, parentPath(path)} {
		s := schemaAt(c.schema, splitPath(p))
		if s != nil && (s.Items != nil || s.AdditionalProperties != nil) && c.nullWithin(p) {
			return true
		}
	}
	return false
}

// nullWithin reports whether the body has null at path or anywhere below it.
func (c *input) nullWithin(path string) bool {
	v, present, null := c.at(path)
	return present && (null || hasNull(v))
}

// hasNull reports whether v holds a null at any depth.
func hasNull(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case map[string]any:
		for _, e := range v {
			if hasNull(e) {
				return true
			}
		}
	case []any:
		for _, e := range v {
			if hasNull(e) {
				return true
			}
		}
	}
	return false
}

// zeroWithin reports whether the body's value at path is, or holds at any depth, a map value
// that is a JSON zero other than null ("", 0, false, {}, []).
func (c *input) zeroWithin(path string) bool {
	v, present, null := c.at(path)
	return present && !null && hasZero(v, true)
}

// hasZero reports whether v is (when self) or holds a non-null JSON zero as a map value.
func hasZero(v any, self bool) bool {
	if self && v != nil && zeroJSON(v) {
		return true
	}
	switch v := v.(type) {
	case map[string]any:
		for _, e := range v {
			if hasZero(e, true) {
				return true
			}
		}
	case []any:
		for _, e := range v {
			if hasZero(e, false) {
				return true
			}
		}
	}
	return false
}

// ruleMessage reports whether msg, a cause's "<type>: <detail>", is a CEL rule's: an Invalid
// value whose detail is none of the schema's own wordings.
func ruleMessage(msg string) bool {
	return strings.HasPrefix(msg, "Invalid value") && !strings.Contains(msg, " in body should ") &&
		!strings.Contains(msg, " in body must be of type ")
}

// parentPath is path without its last element ("" for a top-level field; "<nil>" stays).
func parentPath(path string) string {
	if i := strings.LastIndexAny(path, ".["); i > 0 {
		return path[:i]
	}
	if path == "<nil>" {
		return path
	}
	return ""
}

// underAbsentObject reports whether an ancestor of path is an object with properties (a Go
// struct) that the body does not have.
func (c *input) underAbsentObject(path string) bool {
	for p := parentPath(path); p != "" && p != "<nil>"; p = parentPath(p) {
		if s := schemaAt(c.schema, splitPath(p)); s != nil && len(s.Properties) > 0 && c.absentAt(p) {
			return true
		}
	}
	return false
}

// defaulted reports whether the schema gives the value at path a default.
func (c *input) defaulted(path string) bool {
	s := schemaAt(c.schema, splitPath(path))
	return s != nil && s.Default.Object != nil
}

// absentAt reports whether the body has no value at path.
func (c *input) absentAt(path string) bool { _, present, _ := c.at(path); return !present }

// zeroAt reports whether the body has a JSON zero value ("", 0, false, {}, []) at path.
func (c *input) zeroAt(path string) bool {
	v, present, null := c.at(path)
	return present && !null && zeroJSON(v)
}

// zeroQuantity reports whether v, at path, is a quantity of the schema that equals zero.
func (c *input) zeroQuantity(path string, v any) bool {
	s := schemaAt(c.schema, splitPath(path))
	if s == nil || !s.XIntOrString {
		return false
	}
	q, ok := quantity(v)
	return ok && q.IsZero()
}

// mapPathTwin reports whether d, a missing or extra cause, has a twin on the other side at
// the same field with map keys written the other way (spec.lines.a, spec.lines[a]) and the
// same message once the path in it is written the same way.
func (c *input) mapPathTwin(d difference) bool {
	if d.what != "missing" && d.what != "extra" {
		return false
	}
	for _, o := range c.diffs {
		if (o.what != "missing" && o.what != "extra") || o.what == d.what || o.path == d.path {
			continue
		}
		if dotted(o.path) == dotted(d.path) &&
			strings.ReplaceAll(str(o.oracle)+str(o.apigen), o.path, dotted(o.path)) ==
				strings.ReplaceAll(str(d.oracle)+str(d.apigen), d.path, dotted(d.path)) {
			return true
		}
	}
	return false
}

// dotted writes the map keys of path as kube-openapi does: spec.lines[a] is spec.lines.a.
func dotted(path string) string {
	var b strings.Builder
	for i, el := range splitPath(path) {
		switch el := el.(type) {
		case int:
			b.WriteString("[" + strconv.Itoa(el) + "]")
		case string:
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(el)
		}
	}
	return b.String()
}

// otherExplained reports whether another difference of c than d is matched by a row of
// c.table other than the CEL gate's.
func (c *input) otherExplained(d difference) bool {
	for _, o := range c.diffs {
		if o.path == d.path && o.what == d.what {
			continue
		}
		for _, row := range c.table {
			if row.category == "CEL gate" {
				continue
			}
			if row.match(c, o) {
				return true
			}
		}
	}
	return false
}

// schemaAt returns the schema of the value at path below s, or nil.
func schemaAt(s *structuralschema.Structural, path []any) *structuralschema.Structural {
	for _, el := range path {
		if s == nil {
			return nil
		}
		if _, ok := el.(int); ok {
			s = s.Items
			continue
		}
		s = childSchema(s, el.(string))
	}
	return s
}

// zeroJSON reports whether v is null, "", 0, false, {} or [].
func zeroJSON(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case string:
		return v == ""
	case bool:
		return !v
	case int64:
		return v == 0
	case float64:
		return v == 0
	case map[string]any:
		return len(v) == 0
	case []any:
		return len(v) == 0
	}
	return false
}

// quantity parses a JSON string or number as a resource.Quantity.
func quantity(v any) (resource.Quantity, bool) {
	switch v := v.(type) {
	case string:
		q, err := resource.ParseQuantity(v)
		return q, err == nil
	case int64:
		return *resource.NewQuantity(v, resource.DecimalSI), true
	case float64:
		q, err := resource.ParseQuantity(strconv.FormatFloat(v, 'f', -1, 64))
		return q, err == nil
	}
	return resource.Quantity{}, false
}

// sameQuantityOrTime reports whether o and a are the same quantity, or strings of the same
// RFC 3339 time to the second.
func sameQuantityOrTime(o, a any) bool {
	os, oStr := o.(string)
	as, aStr := a.(string)
	if oStr && aStr {
		ot, oErr := time.Parse(time.RFC3339, os)
		at, aErr := time.Parse(time.RFC3339, as)
		if oErr == nil && aErr == nil {
			return ot.Truncate(time.Second).Equal(at)
		}
	}
	oq, ok1 := quantity(o)
	aq, ok2 := quantity(a)
	return ok1 && ok2 && oq.Cmp(aq) == 0
}
