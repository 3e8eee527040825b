package cacher

import (
	"sort"
	"strings"

	"github.com/apigen-dev/apigen/runtime/storage"
)

// The fields every object can be selected by, narrowed by key rather than by an index.
const (
	fieldName      = "metadata.name"
	fieldNamespace = "metadata.namespace"
)

// fieldIndex maps the values of one selectable field to the entries of the cache's current
// objects that have them, so a list selecting field=value reads only those, as
// kube-apiserver's watch cache indexers. A cache builds one the first time a list selects
// on the field, with that list's attribute function (any attribute function naming the
// field gives the same values), and keeps it current with every event. Guarded by the
// state's lock.
type fieldIndex struct {
	attrs   storage.AttrFunc
	field   string
	byValue map[string]map[string]*entry // value -> key -> entry
	valueOf map[string]string            // key -> value
}

// add indexes e (replacing what its key had).
func (x *fieldIndex) add(e *entry) {
	x.remove(e.key)
	_, fields, err := x.attrs(e.peek())
	if err != nil {
		return // the predicate cannot select it either
	}
	v := fields[x.field]
	set := x.byValue[v]
	if set == nil {
		set = map[string]*entry{}
		x.byValue[v] = set
	}
	set[e.key] = e
	x.valueOf[e.key] = v
}

// remove forgets key.
func (x *fieldIndex) remove(key string) {
	v, ok := x.valueOf[key]
	if !ok {
		return
	}
	delete(x.valueOf, key)
	if set := x.byValue[v]; set != nil {
		delete(set, key)
		if len(set) == 0 {
			delete(x.byValue, v)
		}
	}
}

// indexFor returns the state's index of field, building it from the current objects with
// attrs the first time. s.mu must be held for writing.
func (s *state) indexForLocked(field string, attrs storage.AttrFunc) *fieldIndex {
	if x := s.indexes[field]; x != nil {
		return x
	}
	x := &fieldIndex{attrs: attrs, field: field, byValue: map[string]map[string]*entry{}, valueOf: map[string]string{}}
	s.current.Ascend(func(e *entry) bool {
		x.add(e)
		return true
	})
	if s.indexes == nil {
		s.indexes = map[string]*fieldIndex{}
	}
	s.indexes[field] = x
	return x
}

// indexed returns the entries of the latest objects whose field is value, in key order,
// with the view they belong to (built on first use; see fieldIndex).
func (s *state) indexed(field, value string, attrs storage.AttrFunc) ([]*entry, view) {
	s.mu.RLock()
	x := s.indexes[field]
	if x == nil {
		s.mu.RUnlock()
		s.mu.Lock()
		x = s.indexForLocked(field, attrs)
		s.mu.Unlock()
		s.mu.RLock()
	}
	defer s.mu.RUnlock()
	set := x.byValue[value]
	out := make([]*entry, 0, len(set))
	for _, e := range set {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key < out[j].key })
	return out, view{s.current, s.rev, s.generation}
}

// reindexLocked updates every index for the change of key to e (nil: deleted). s.mu must
// be held for writing.
func (s *state) reindexLocked(key string, e *entry) {
	for _, x := range s.indexes {
		if e == nil {
			x.remove(key)
		} else {
			x.add(e)
		}
	}
}

// candidates is where a filtered list looks for its items: fn is called, in key order,
// with entries that include every entry at or after from, under the list's prefix, that the
// predicate may select (others too); it stops when fn returns false.
type candidates func(from string, fn func(*entry) bool)

// narrow returns the candidates of a filtered list of t (the objects at one revision) under
// prefix whose predicate requires an exact field value: the namespace's key range for
// metadata.namespace, one key for metadata.name in a known namespace, or, first, when
// latest (t is the latest state), a fieldIndex's entries for another field, with the view
// they belong to (nil: t's). ok is false when nothing narrows the list.
func (s *state) narrow(t *tree, prefix string, pred storage.SelectionPredicate, latest bool) (candidates, *view, bool) {
	if pred.Field == nil || pred.Field.Empty() {
		return nil, nil, false
	}
	ns := namespaceOf(prefix)
	if v, ok := pred.Field.RequiresExactMatch(fieldNamespace); ok && prefix == "/" && v != "" {
		ns, prefix = v, "/"+v+"/"
	}
	if name, ok := pred.Field.RequiresExactMatch(fieldName); ok && ns != "" {
		key := prefix + name
		return func(from string, fn func(*entry) bool) {
			if key >= from {
				ascendFrom(t, key, key, false, fn)
			}
		}, nil, true
	}
	for _, r := range pred.Field.Requirements() {
		value, ok := pred.Field.RequiresExactMatch(r.Field)
		if !latest || pred.GetAttrs == nil || !ok || r.Field == fieldName || r.Field == fieldNamespace {
			continue
		}
		entries, v := s.indexed(r.Field, value, pred.GetAttrs)
		return func(from string, fn func(*entry) bool) {
			i := sort.Search(len(entries), func(i int) bool { return entries[i].key >= from })
			for ; i < len(entries); i++ {
				if strings.HasPrefix(entries[i].key, prefix) && !fn(entries[i]) {
					return
				}
			}
		}, &v, true
	}
	if ns != "" {
		return func(from string, fn func(*entry) bool) { ascendFrom(t, prefix, max(from, prefix), true, fn) }, nil, true
	}
	return nil, nil, false
}

// keyAfter reports whether t has a key under prefix after key.
func keyAfter(t *tree, prefix, key string) bool {
	found := false
	t.AscendGreaterOrEqual(&entry{key: key + "\x00"}, func(e *entry) bool {
		found = strings.HasPrefix(e.key, prefix)
		return false
	})
	return found
}
