package cacher

import (
	"cmp"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// maxInterned bounds each table of an interner: past it, values not seen yet are left as
// they are, so a cache of objects with ever new values holds no growing table.
const maxInterned = 4096

// interner makes the objects a cache holds share equal metadata values instead of each
// holding its own copy: the namespace, and the managed fields' manager, operation,
// apiVersion, fieldsType and fieldsV1 (the objects one manager writes with one set of fields
// have equal managed-fields entries, whose fieldsV1 is often the largest part of the
// metadata: a few hundred bytes per object). The values are never modified: the cache's
// objects are immutable, and a reader that may change one gets a deep copy. The reflector
// interns what it reads, readers what they decode from a cold entry: safe for concurrent
// use (values are looked up under a read lock, added under the lock).
type interner struct {
	mu      sync.RWMutex
	strings map[string]string
	fields  map[string][]byte
}

func newInterner() *interner {
	return &interner{strings: map[string]string{}, fields: map[string][]byte{}}
}

// intern replaces obj's namespace and managed fields' values with the equal ones of objects
// interned before. obj must not be shared yet. Objects without ObjectMeta of their own (a
// custom resource's unstructured content) are left as they are.
func (in *interner) intern(obj runtime.Object) {
	if _, ok := obj.(runtime.Unstructured); ok {
		return
	}
	acc, err := meta.Accessor(obj)
	if err != nil {
		return
	}
	if ns := acc.GetNamespace(); ns != "" {
		acc.SetNamespace(in.str(ns))
	}
	// ObjectMeta's GetManagedFields returns its own slice: the entries change in place.
	fields := acc.GetManagedFields()
	for i := range fields {
		f := &fields[i]
		f.Manager, f.APIVersion = in.str(f.Manager), in.str(f.APIVersion)
		f.Operation = metav1.ManagedFieldsOperationType(in.str(string(f.Operation)))
		f.FieldsType = in.str(f.FieldsType)
		if f.FieldsV1 != nil && len(f.FieldsV1.Raw) > 0 {
			f.FieldsV1.Raw = in.bytes(f.FieldsV1.Raw)
		}
	}
}

// str returns the interned string equal to s.
func (in *interner) str(s string) string {
	if s == "" {
		return s
	}
	in.mu.RLock()
	v, ok := in.strings[s]
	full := len(in.strings) >= maxInterned
	in.mu.RUnlock()
	if ok || full {
		return cmp.Or(v, s)
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if v, ok := in.strings[s]; ok {
		return v
	}
	if len(in.strings) < maxInterned {
		in.strings[s] = s
	}
	return s
}

// bytes returns the interned bytes equal to b (a fieldsV1's).
func (in *interner) bytes(b []byte) []byte {
	in.mu.RLock()
	v, ok := in.fields[string(b)]
	full := len(in.fields) >= maxInterned
	in.mu.RUnlock()
	if ok {
		return v
	}
	if full {
		return b
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if v, ok := in.fields[string(b)]; ok {
		return v
	}
	if len(in.fields) < maxInterned {
		in.fields[string(b)] = b
	}
	return b
}
