package markers

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"k8s.io/gengo/v2/codetags"

	"github.com/apigen-dev/apigen/generators/model"
)

// Line is one comment line with its position: Text is the comment text without "//"
// (leading spaces allowed), e.g. " +kubebuilder:validation:Minimum=0".
type Line struct {
	Text string
	Pos  model.Position
}

// IsMarker reports whether a comment line (without "//") is a marker: its first non-space
// character is "+" followed by a letter.
func IsMarker(text string) bool {
	t := strings.TrimSpace(text)
	return len(t) > 1 && t[0] == '+' && isLetter(t[1])
}

// directiveRE matches a comment directive: "//" directly followed by a lower-case word and
// a colon, as go/ast recognises them.
var directiveRE = regexp.MustCompile(`^[a-z0-9]+:[a-z0-9]`)

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// Doc joins the non-marker lines of a comment into a doc string, trimmed: marker lines
// and directives ("//go:generate ...", "//nolint:..."; as go/ast's CommentGroup.Text) are
// dropped, and so are leading and trailing blank lines.
func Doc(lines []Line) string {
	var kept []string
	for _, l := range lines {
		if IsMarker(l.Text) || directiveRE.MatchString(l.Text) {
			continue
		}
		kept = append(kept, strings.TrimRight(strings.TrimPrefix(l.Text, " "), " \t"))
	}
	return strings.TrimSpace(strings.Join(kept, "\n"))
}

// Has reports whether lines carry the marker name exactly (with or without a value), e.g.
// Has(lines, "genclient:noStatus"); it serves the few markers model.Markers has no field for.
func Has(lines []Line, name string) bool {
	for _, l := range lines {
		if !IsMarker(l.Text) {
			continue
		}
		body := strings.TrimSpace(l.Text)[1:]
		if body == name || strings.HasPrefix(body, name+"=") {
			return true
		}
	}
	return false
}

// Parse parses every marker among lines (non-marker lines are skipped) into one
// model.Markers, with the grammar of r's definitions. Problems come back as diagnostics at
// the marker's position; a marker with a problem sets nothing.
func (r *Registry) Parse(lines []Line) (model.Markers, model.Diagnostics) {
	s := &State{reg: r, m: &model.Markers{}, seen: map[string]seenValue{}}
	for _, l := range lines {
		if !IsMarker(l.Text) {
			continue
		}
		s.line = l
		s.parseOne(strings.TrimSpace(l.Text)[1:])
	}
	for _, rules := range s.oneOf {
		s.m.Validation.Rules = append(s.m.Validation.Rules, rules...)
	}
	if s.m.Required && s.m.Default != nil {
		s.line.Pos = s.defaultPos
		s.errorf("%s: a required field cannot have a default", s.seen["default"].marker)
	}
	if s.m.Required && s.m.Optional {
		opt, req := s.seen["optional"], s.seen["required"]
		later, earlier := req, opt
		if comparePos(opt.pos, req.pos) > 0 {
			later, earlier = opt, req
		}
		s.line.Pos = later.pos
		s.errorf("%s: a field cannot be both optional and required (%s); keep one", later.marker, earlier.marker)
	}
	return *s.m, s.diags
}

// State accumulates one declaration's markers while Registry.Parse reads them; an
// ApplyFunc sets the model through it.
type State struct {
	reg   *Registry
	m     *model.Markers
	seen  map[string]seenValue
	line  Line
	diags model.Diagnostics
	// defaultPos is where the default was set, for the required-with-default error.
	defaultPos model.Position
	// tag is the current marker parsed by gengo's codetags when it is a function-style +k8s:
	// tag (IsCodetag), for the markers that take codetag arguments.
	tag *codetags.Tag
	// oneOf holds the rules of the one-of markers, by oneOfDefs index.
	oneOf [3][]model.ValidationRule
}

// seenValue remembers which marker first set a model field, for conflict messages.
type seenValue struct {
	value  string
	marker string
	pos    model.Position
}

// comparePos orders two positions of one declaration by line, then column.
func comparePos(a, b model.Position) int {
	if a.Line != b.Line {
		return a.Line - b.Line
	}
	return a.Col - b.Col
}

func (s *State) errorf(format string, args ...any) {
	s.diags = append(s.diags, model.Diagnostic{Pos: s.line.Pos, Message: fmt.Sprintf(format, args...)})
}

// parseOne parses one marker body (the text after "+").
func (s *State) parseOne(body string) {
	name, rest, known := s.reg.lookup(body)
	if !known {
		if msg := s.reg.unknown(body); msg != "" {
			s.warnf("%s", msg)
		}
		return
	}
	if name == "k8s:ifEnabled" || name == "k8s:ifDisabled" || name == "k8s:beta" {
		s.parseWrapped(body, rest)
		return
	}
	if s.warnUnhonored(name, body) {
		return
	}
	s.tag = nil
	if IsCodetag(body) {
		if s.tag = s.parseCodetag(body); s.tag == nil {
			return
		}
	}
	def := s.reg.defs[name]
	if def == nil || def.Apply == nil {
		return
	}
	fn := def.Apply
	if err := fn(s, rest); err != nil {
		s.errorf("+%s: %v", strings.TrimSpace(body), err)
	}
}

// parseWrapped unwraps +k8s:ifEnabled(Feature)=+inner and parses the inner marker.
func (s *State) parseWrapped(body, rest string) {
	inner := strings.TrimSpace(rest)
	if !strings.HasPrefix(inner, "+") {
		s.errorf("+%s: the value must be a marker, as +k8s:ifEnabled(Feature)=+k8s:maxItems=10", body)
		return
	}
	s.parseOne(inner[1:])
}

// record notes that field is set to value by the current marker; a different earlier value
// is a conflict.
func (s *State) record(field, value string) error {
	marker := "+" + strings.TrimSpace(strings.TrimSpace(s.line.Text)[1:])
	if prev, ok := s.seen[field]; ok && prev.value != value {
		return fmt.Errorf("conflicts with %s", prev.marker)
	}
	s.seen[field] = seenValue{value: value, marker: marker, pos: s.line.Pos}
	return nil
}

// setDefault records a JSON default (Parse rejects one on a required field).
func (s *State) setDefault(j string) error {
	if err := s.record("default", j); err != nil {
		return err
	}
	s.m.Default = &j
	s.defaultPos = s.line.Pos
	return nil
}

// lookup finds the known marker name body starts with and returns the rest: the value after
// "=", the arguments after ":", or "" for a bare flag. Codetag arguments "(X)" stay on the
// name only for ifEnabled/ifDisabled, which need none of them.
func (r *Registry) lookup(body string) (name, rest string, known bool) {
	head := body
	if i := strings.IndexAny(body, "=("); i >= 0 {
		head = body[:i]
	}
	if f := r.family(body); f != nil {
		return f.Name, "", true
	}
	if _, ok := r.defs[head]; ok && wrappers[head] {
		_, after, _ := strings.Cut(body, ")=")
		return head, after, true
	}
	// Longest known prefix of head that ends at a ":" boundary.
	for cand := head; cand != ""; {
		if d, ok := r.defs[cand]; ok && !d.Family {
			return cand, valueAfter(body, len(cand)), true
		}
		i := strings.LastIndexByte(cand, ':')
		if i < 0 {
			break
		}
		cand = cand[:i]
	}
	return "", "", false
}

// valueAfter returns what follows the marker name at n: skipping codetag "(args)", then one
// "=", ":=" or ":". controller-tools reads "+kubebuilder:default:=Allow" and
// "+kubebuilder:validation:Minimum:=1" as "=" (its splitMarker drops the empty last name
// segment), and the kubebuilder book writes them so.
func valueAfter(body string, n int) string {
	rest := body[n:]
	if strings.HasPrefix(rest, "(") {
		if i := strings.Index(rest, ")"); i >= 0 {
			rest = rest[i+1:]
		}
	}
	switch {
	case strings.HasPrefix(rest, ":="):
		rest = rest[2:]
	case rest != "" && (rest[0] == '=' || rest[0] == ':'):
		rest = rest[1:]
	}
	return strings.TrimSpace(rest)
}

// unknown returns the warning for an unknown marker, or "" when it is to be ignored: any
// unknown marker in the kubebuilder namespace, which apigen owns, is reported, naming the
// nearest known marker when the spelling is close; in the k8s and genclient namespaces (shared
// with generators apigen does not replace) and among bare markers only a near miss of a known
// name is reported. controller-gen ignores markers it does not know; apigen warns, so that a
// misspelt constraint is never silently dropped, and `apigen generate --strict` fails on it.
func (r *Registry) unknown(body string) string {
	head := body
	if i := strings.IndexAny(body, "=("); i >= 0 {
		head = body[:i]
	}
	head = strings.TrimSuffix(head, ":")
	ns, _, _ := strings.Cut(head, ":")
	best, dist := r.nearest(head)
	near := best != "" && dist <= max(1, len(head)/6)
	switch {
	case near:
		return fmt.Sprintf("unknown marker +%s (did you mean +%s?)", head, best)
	case ns == "kubebuilder":
		return fmt.Sprintf("unknown marker +%s: apigen and controller-gen ignore it", head)
	}
	return ""
}

// nearest returns the known marker name closest to head by edit distance, also comparing
// head's leading colon-separated segments (so arguments written as extra segments, as in
// kubebuilder:resourse:path, still find kubebuilder:resource).
func (r *Registry) nearest(head string) (string, int) {
	names := make([]string, 0, len(r.defs))
	for n, d := range r.defs {
		if !d.Family {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	segs := strings.Split(head, ":")
	best, bestDist := "", 1<<30
	for _, n := range names {
		nsegs := strings.Count(n, ":") + 1
		cand := head
		if nsegs < len(segs) {
			cand = strings.Join(segs[:nsegs], ":")
		}
		if d := levenshtein(cand, n); d < bestDist {
			best, bestDist = n, d
		}
	}
	return best, bestDist
}

// GluedToFunc returns the marker name of a comment line (without "//") in a function's doc
// comment when it is a known package, type or field marker, which apigen (like gengo and
// controller-tools) does not read there: "kubebuilder:validation:Minimum" for
// " +kubebuilder:validation:Minimum=0". It returns "" for text that is no marker, for markers
// of unknown namespaces, for the open-ended families (+kubebuilder:rbac, +kubebuilder:webhook,
// ... which controller-gen reads from functions) and for markers that belong on functions
// (FuncLevel: conversion-gen's +k8s:conversion-fn on a hand-written Convert_ function).
func (r *Registry) GluedToFunc(text string) string {
	if !IsMarker(text) {
		return ""
	}
	body := strings.TrimSpace(text)[1:]
	name, _, known := r.lookup(body)
	if !known {
		return ""
	}
	if d := r.defs[name]; d.Family || d.Level&FuncLevel != 0 {
		return ""
	}
	return name
}

// wrappers are the codetags whose value is another marker (+k8s:ifEnabled(Feature)=+inner):
// lookup returns the inner marker as their value.
var wrappers = map[string]bool{"k8s:ifEnabled": true, "k8s:ifDisabled": true, "k8s:alpha": true, "k8s:beta": true}
