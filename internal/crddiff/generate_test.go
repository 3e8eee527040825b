package crddiff

import (
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"sort"
	"strings"

	"github.com/lucasjones/reggen"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
)

// generator draws JSON values (map[string]any, []any, string, int64, float64, bool) that a
// structural schema accepts, from a seeded source: the same seed draws the same values.
// Strings follow the schema's enum, else its format (formatSamples), else its pattern
// (github.com/lucasjones/reggen, checked against the pattern and the lengths), else random
// text; numbers keep to minimum, maximum and multipleOf; lists to minItems, maxItems and
// their list type's uniqueness; optional properties are present with probability 0.6.
// x-kubernetes-validations rules are not solved: values that break them are rejected inputs.
type generator struct {
	r *rand.Rand
	// patterns caches a reggen generator and the compiled pattern per pattern; regexps the
	// patterns the mutations compile (nil for one that does not compile).
	patterns map[string]*patternGen
	regexps  map[string]*regexp.Regexp
}

// patternGen draws strings for one pattern.
type patternGen struct {
	gen *reggen.Generator
	re  *regexp.Regexp
}

// newGenerator returns a generator drawing from seed.
func newGenerator(seed uint64) *generator {
	return &generator{r: rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)), patterns: map[string]*patternGen{},
		regexps: map[string]*regexp.Regexp{}}
}

// chance returns true with probability p.
func (g *generator) chance(p float64) bool { return g.r.Float64() < p }

// value draws a value s accepts. depth bounds recursion through nested objects and lists.
func (g *generator) value(s *structuralschema.Structural, depth int) any {
	vv := valueValidation(s)
	if len(vv.Enum) > 0 {
		return vv.Enum[g.r.IntN(len(vv.Enum))].Object
	}
	switch {
	case s.XIntOrString:
		if g.chance(0.25) {
			return int64(g.r.IntN(2000))
		}
		return g.str(s)
	case s.XPreserveUnknownFields && s.Type == "":
		return map[string]any{"free": g.word(1, 6)}
	}
	switch s.Type {
	case "object":
		return g.object(s, depth)
	case "array":
		return g.list(s, depth)
	case "string":
		return g.str(s)
	case "integer":
		return g.integer(s)
	case "number":
		return g.number(s)
	case "boolean":
		return g.chance(0.5)
	}
	return nil
}

// valueValidation returns s's value validation, or an empty one.
func valueValidation(s *structuralschema.Structural) *structuralschema.ValueValidation {
	if s.ValueValidation == nil {
		return &structuralschema.ValueValidation{}
	}
	return s.ValueValidation
}

// object draws an object: every required property, each optional one with probability 0.6
// (0.3 below depth 0), and for additionalProperties up to minProperties+3 entries.
func (g *generator) object(s *structuralschema.Structural, depth int) map[string]any {
	out := map[string]any{}
	vv := valueValidation(s)
	required := map[string]bool{}
	for _, r := range vv.Required {
		required[r] = true
	}
	for _, name := range sortedKeys(s.Properties) {
		p := s.Properties[name]
		pIn := 0.6
		if depth <= 0 {
			pIn = 0.3
		}
		if required[name] || g.chance(pIn) {
			out[name] = g.value(&p, depth-1)
		}
	}
	if ap := s.AdditionalProperties; ap != nil && ap.Structural != nil {
		lo := int(ptrOr(vv.MinProperties, 0))
		hi := min(int(ptrOr(vv.MaxProperties, math.MaxInt32)), lo+3)
		for n := lo + g.r.IntN(hi-lo+1); len(out) < n; {
			out[g.word(1, 8)] = g.value(ap.Structural, depth-1)
		}
	}
	return out
}

// list draws a list of minItems to minItems+3 items (at most maxItems), dropping items that
// would repeat an item of a set or a key of a map list.
func (g *generator) list(s *structuralschema.Structural, depth int) []any {
	vv := valueValidation(s)
	lo := int(ptrOr(vv.MinItems, 0))
	hi := min(int(ptrOr(vv.MaxItems, math.MaxInt32)), lo+3)
	n := lo + g.r.IntN(hi-lo+1)
	out := []any{}
	seen := map[string]bool{}
	for tries := 0; len(out) < n && tries < 4*n+4; tries++ {
		item := g.value(s.Items, depth-1)
		key := identity(s, item)
		if key != "" && seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, item)
	}
	return out
}

// identity is what makes item unique in the list s: its key fields for
// x-kubernetes-list-type map, the whole item for set (or uniqueItems), "" otherwise.
func identity(s *structuralschema.Structural, item any) string {
	switch {
	case s.XListType != nil && *s.XListType == "map":
		m, _ := item.(map[string]any)
		parts := make([]string, len(s.XListMapKeys))
		for i, k := range s.XListMapKeys {
			parts[i] = fmt.Sprintf("%#v", m[k])
		}
		return strings.Join(parts, "\x00")
	case s.XListType != nil && *s.XListType == "set", valueValidation(s).UniqueItems:
		return fmt.Sprintf("%#v", item)
	}
	return ""
}

// str draws a string of s's format, else matching its pattern, else random text, within
// minLength and maxLength.
func (g *generator) str(s *structuralschema.Structural) string {
	vv := valueValidation(s)
	lo := int(ptrOr(vv.MinLength, 0))
	hi := int(ptrOr(vv.MaxLength, math.MaxInt32))
	if samples, ok := formatSamples[vv.Format]; ok {
		return samples.valid[g.r.IntN(len(samples.valid))]
	}
	if vv.Pattern != "" {
		if s, ok := g.matching(vv.Pattern, lo, hi); ok {
			return s
		}
	}
	if lo == 0 && g.chance(0.1) {
		return ""
	}
	return g.text(max(lo, 1), min(hi, lo+12))
}

// regexp returns pattern compiled, nil when it does not compile; compiled once per generator.
func (g *generator) regexp(pattern string) *regexp.Regexp {
	re, ok := g.regexps[pattern]
	if !ok {
		re, _ = regexp.Compile(pattern)
		g.regexps[pattern] = re
	}
	return re
}

// matching draws a string matching pattern with lo to hi characters; false when 20 draws
// found none.
func (g *generator) matching(pattern string, lo, hi int) (string, bool) {
	pg, ok := g.patterns[pattern]
	if !ok {
		gen, err := reggen.NewGenerator(pattern)
		re, rerr := regexp.Compile(pattern)
		if err != nil || rerr != nil {
			return "", false
		}
		gen.SetSeed(int64(g.r.Uint64() >> 1))
		pg = &patternGen{gen: gen, re: re}
		g.patterns[pattern] = pg
	}
	for range 20 {
		s := pg.gen.Generate(3 + g.r.IntN(6))
		if n := len([]rune(s)); n >= lo && n <= hi && pg.re.MatchString(s) {
			return s, true
		}
	}
	return "", false
}

// text draws lo to hi characters (hi at least lo) of letters, digits and now and then '-',
// '_', '.' or a space.
func (g *generator) text(lo, hi int) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyzABCXYZ-_. "
	n := lo
	if hi > lo {
		n += g.r.IntN(hi - lo + 1)
	}
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[g.r.IntN(len(alphabet))]
	}
	return string(b)
}

// word draws a lower-case name of lo to hi letters and digits, starting with a letter.
func (g *generator) word(lo, hi int) string {
	const letters, alnum = "abcdefghijklmnopqrstuvwxyz", "abcdefghijklmnopqrstuvwxyz0123456789"
	n := lo + g.r.IntN(hi-lo+1)
	b := []byte{letters[g.r.IntN(len(letters))]}
	for len(b) < n {
		b = append(b, alnum[g.r.IntN(len(alnum))])
	}
	return string(b)
}

// integer draws an integer within s's bounds (and its format's), a multiple of multipleOf.
func (g *generator) integer(s *structuralschema.Structural) int64 {
	lo, hi := g.bounds(s, -20, 50)
	l, h := int64(math.Ceil(lo)), int64(math.Floor(hi))
	if h < l {
		return l
	}
	v := l + g.r.Int64N(h-l+1)
	if m := valueValidation(s).MultipleOf; m != nil && *m >= 1 && *m == math.Trunc(*m) {
		f := int64(*m)
		v -= v % f
		if v < l {
			v += f
		}
	}
	return v
}

// number draws a number within s's bounds, integral half of the time.
func (g *generator) number(s *structuralschema.Structural) float64 {
	lo, hi := g.bounds(s, -20, 50)
	v := lo + g.r.Float64()*(hi-lo)
	if g.chance(0.5) {
		v = math.Ceil(v)
	}
	if m := valueValidation(s).MultipleOf; m != nil && *m > 0 {
		v = math.Ceil(lo / *m) * *m
	}
	return v
}

// bounds returns the inclusive range a number of s may take, from its minimum and maximum
// (exclusive ones moved by 1 for integers, by a little for numbers) and its format, else
// around [dlo, dhi].
func (g *generator) bounds(s *structuralschema.Structural, dlo, dhi float64) (float64, float64) {
	vv := valueValidation(s)
	step := 1e-3
	if s.Type == "integer" {
		step = 1
	}
	lo, hi := dlo, dhi
	if vv.Minimum != nil {
		lo = *vv.Minimum
		if vv.ExclusiveMinimum {
			lo += step
		}
		if vv.Maximum == nil {
			hi = lo + (dhi - dlo)
		}
	}
	if vv.Maximum != nil {
		hi = *vv.Maximum
		if vv.ExclusiveMaximum {
			hi -= step
		}
		if vv.Minimum == nil {
			lo = hi - (dhi - dlo)
		}
	}
	if vv.Format == "int32" {
		lo, hi = max(lo, math.MinInt32), min(hi, math.MaxInt32)
	}
	return lo, hi
}

// ptrOr returns *p, or def when p is nil.
func ptrOr(p *int64, def int64) int64 {
	if p == nil {
		return def
	}
	return *p
}

// sortedKeys returns m's keys in order, so that draws do not depend on map iteration.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// formatSample holds strings of one OpenAPI format: valid ones the generator draws, and
// invalid ones the mutations use.
type formatSample struct {
	valid, invalid []string
}

// formatSamples are the formats the generator knows, as kube-openapi's strfmt registry
// checks them for a CRD (formats a CRD does not support are stripped and not checked; a
// value from valid must pass, one from invalid must fail, where the format is checked).
var formatSamples = map[string]formatSample{
	"date-time": {
		valid:   []string{"2026-03-01T10:00:00Z", "2025-12-31T23:59:59Z", "2024-02-29T00:00:00Z", "2026-01-02T03:04:05.5Z", "2026-01-02T03:04:05+02:00"},
		invalid: []string{"yesterday", "2026-13-01T00:00:00Z", "2026-03-01 10:00"},
	},
	"date":          {valid: []string{"2026-03-01", "1999-12-31"}, invalid: []string{"2026-02-30x", "03/01/2026"}},
	"k8s-long-name": {valid: []string{"orders", "db-1", "a.b-c.d", "x"}, invalid: []string{"Orders", "-db", "db_1", "a..b"}},
	"k8s-short-name": {
		valid:   []string{"orders", "db-1", "x"},
		invalid: []string{"Orders", "a.b", "-x"},
	},
	"hostname": {valid: []string{"example.com", "db-1.example.org"}, invalid: []string{"-bad-.com", "under_score.com"}},
	"ipv4":     {valid: []string{"10.0.0.1", "192.168.1.254"}, invalid: []string{"10.0.0.256", "1.2.3"}},
	"ipv6":     {valid: []string{"::1", "fd00::1"}, invalid: []string{"::g", "1:2"}},
	"uri":      {valid: []string{"https://example.com/a", "http://localhost:8080"}, invalid: []string{"not a uri", ":"}},
	"email":    {valid: []string{"ada@example.com"}, invalid: []string{"ada at example.com"}},
	"uuid":     {valid: []string{"3f1c0e4a-7c3e-4a58-9d1e-0b7f3e0c9a11"}, invalid: []string{"3f1c0e4a"}},
	"duration": {valid: []string{"1h", "30s", "1h30m"}, invalid: []string{"an hour"}},
	"byte":     {valid: []string{"aGVsbG8=", ""}, invalid: []string{"!!notbase64"}},
}
