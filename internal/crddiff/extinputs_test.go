package crddiff

import (
	"encoding/json"
	"fmt"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apimachinery/pkg/runtime"
)

// extensionsCase is a hand-written input of the extensions differential: a case a user
// reported, or one the generator cannot draw (it always names the object), kept so
// that the differential covers it whatever the generator draws.
type extensionsCase struct {
	// kind is the target's name (kindUnderTest.name), name what the case is.
	kind, name string
	body       string
}

// extensionsCases are the hand-written cases, sent after the examples.
var extensionsCases = []extensionsCase{
	{kind: "gateway.networking.k8s.io/v1/HTTPRoute", name: "two parentRefs differing only in namespace",
		body: `{"apiVersion":"gateway.networking.k8s.io/v1","kind":"HTTPRoute","metadata":{"name":"r"},
			"spec":{"parentRefs":[{"name":"gw"},{"name":"gw","namespace":"other"}]}}`},
	{kind: "gateway.networking.k8s.io/v1/HTTPRoute", name: "two parentRefs to one parent without sectionName",
		body: `{"apiVersion":"gateway.networking.k8s.io/v1","kind":"HTTPRoute","metadata":{"name":"r"},
			"spec":{"parentRefs":[{"name":"gw","namespace":"a"},{"name":"gw","namespace":"a"}]}}`},
	{kind: "gateway.networking.k8s.io/v1/HTTPRoute", name: "no name, and a rule broken",
		body: `{"apiVersion":"gateway.networking.k8s.io/v1","kind":"HTTPRoute","metadata":{},
			"spec":{"parentRefs":[{"name":"gw"},{"name":"gw"}]}}`},
	{kind: "gateway.networking.k8s.io/v1/Gateway", name: "an IPAddress that is neither ipv4 nor ipv6",
		body: `{"apiVersion":"gateway.networking.k8s.io/v1","kind":"Gateway","metadata":{"name":"g"},
			"spec":{"gatewayClassName":"c","listeners":[{"name":"http","port":80,"protocol":"HTTP"}],
			"addresses":[{"type":"IPAddress","value":"10.0.0.256"},{"value":"fd00::1"}]}}`},
}

// extensionsInputs returns tg's inputs: the release's examples of its kind and version and
// the cases of extensionsCases for it (both with the namespace each names, "" for none),
// then n generated ones from seed (generateExtensions).
func extensionsInputs(r *release, tg *target, seed uint64, n int) (fixed []input, namespaces []string, generated []input) {
	for _, ex := range r.examplesOf(tg.kindUnderTest) {
		fixed = append(fixed, input{name: fmt.Sprintf("%s#%d", ex.file, ex.index), body: ex.body})
		namespaces = append(namespaces, namespaceOf(ex.object))
	}
	for _, c := range extensionsCases {
		if c.kind == tg.name() {
			var obj map[string]any
			_ = json.Unmarshal([]byte(c.body), &obj)
			body, _ := json.Marshal(obj)
			fixed = append(fixed, input{name: "case: " + c.name, body: body})
			namespaces = append(namespaces, namespaceOf(obj))
		}
	}
	return fixed, namespaces, tg.generateExtensions(seed, n)
}

// generateExtensions is generate with one more kind of input: a quarter of the inputs are a
// valid object with a sibling (see siblings) added to one of its lists of objects and, half
// of the time, one mutation as generate draws them. Siblings reach the rules Gateway API's
// CRDs put on lists (unique names, one reference per parent, ...), which independent items
// rarely meet.
func (tg *target) generateExtensions(seed uint64, n int) []input {
	g := newGenerator(seed)
	out := make([]input, 0, n)
	for i := range n {
		var in input
		if g.chance(0.25) {
			in = tg.drawSibling(g, i, b2i(g.chance(0.5)))
		} else {
			mutations := 0
			if !g.chance(0.4) {
				mutations = 1 + b2i(g.chance(0.2))
			}
			in = tg.draw(g, i, mutations)
		}
		in.name = fmt.Sprintf("generated #%d (seed %d)", i, seed)
		out = append(out, in)
	}
	return out
}

// drawSibling draws a valid object named gen-<i>, adds a sibling to one of its lists of
// objects (none when it has none) and applies up to mutations mutations to it.
func (tg *target) drawSibling(g *generator, i, mutations int) input {
	obj := tg.validObject(g, i)
	var in input
	if sites := g.siblings(obj, tg.oracle.structural); len(sites) > 0 {
		m := sites[g.r.IntN(len(sites))]
		m.apply(obj)
		in.mutations = append(in.mutations, m)
	}
	for range mutations {
		if m, ok := g.pick(g.mutations(obj, tg.oracle.structural)); ok {
			m.apply(obj)
			in.mutations = append(in.mutations, m)
		}
	}
	in.body, _ = json.Marshal(obj)
	return in
}

// siblings lists, for every non-empty list of objects in obj (a valid object of the root
// schema s), the mutation "sibling": a copy of one of its items appended to it, with one
// property of the copy changed: removed, set when it was absent, or drawn anew.
func (g *generator) siblings(obj map[string]any, s *structuralschema.Structural) []mutation {
	var out []mutation
	var walk func(v any, s *structuralschema.Structural, path []any)
	walk = func(v any, s *structuralschema.Structural, path []any) {
		if s == nil {
			return
		}
		switch v := v.(type) {
		case map[string]any:
			for _, k := range sortedKeys(v) {
				if len(path) == 0 && k == "metadata" {
					continue
				}
				walk(v[k], childSchema(s, k), append(path, k))
			}
		case []any:
			for i, item := range v {
				walk(item, s.Items, append(path, i))
			}
			if len(v) > 0 && s.Items != nil && len(s.Items.Properties) > 0 {
				out = append(out, g.sibling(v, s.Items, append([]any(nil), path...)))
			}
		}
	}
	walk(obj, s, nil)
	return out
}

// sibling returns the mutation appending to the list list at path a changed copy of one of
// its items (item schema items); see siblings.
func (g *generator) sibling(list []any, items *structuralschema.Structural, path []any) mutation {
	i := g.r.IntN(len(list))
	props := sortedKeys(items.Properties)
	prop := props[g.r.IntN(len(props))]
	p := items.Properties[prop]
	drawn := g.value(&p, 1)
	return mutation{kind: "sibling", path: append(path, i), apply: func(root map[string]any) {
		cur, _ := lookupPath(root, path).([]any)
		if i >= len(cur) {
			return
		}
		item, ok := runtime.DeepCopyJSONValue(cur[i]).(map[string]any)
		if !ok {
			return
		}
		if _, has := item[prop]; has && g.chance(0.5) {
			delete(item, prop)
		} else {
			item[prop] = drawn
		}
		set(lookupPath(root, path[:len(path)-1]), path[len(path)-1], append(cur, item))
	}}
}
