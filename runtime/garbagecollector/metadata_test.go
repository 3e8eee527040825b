package garbagecollector

import (
	"reflect"
	"strings"
	"testing"
	"unsafe"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// TestObjectMetadataOwnsItsStrings: what the collector keeps of an object shares no string
// memory with the object (a watch cache's object cuts its strings from one string of its
// whole document, which a shared string would keep alive), and is equal to what it copied.
func TestObjectMetadataOwnsItsStrings(t *testing.T) {
	want := []string{"name-0", "ns", "123e4567-e89b-12d3-a456-426614174000", "1234", "v1", "Owner", "owner-a", "uid-owner", "finalizer.example.com/x"}
	doc := strings.Join(want, "")
	var parts []string // want's strings, cut from doc
	for rest := doc; len(parts) < len(want); {
		n := len(want[len(parts)])
		parts, rest = append(parts, rest[:n]), rest[n:]
	}
	m := &metav1.ObjectMeta{Name: parts[0], Namespace: parts[1], UID: types.UID(parts[2]), ResourceVersion: parts[3],
		OwnerReferences: []metav1.OwnerReference{{APIVersion: parts[4], Kind: parts[5], Name: parts[6], UID: types.UID(parts[7])}},
		Finalizers:      []string{parts[8]}}
	o := newObjectMetadata(m, false)
	r := o.ownerReferences[0]
	kept := []string{o.name, o.namespace, string(o.uid), o.resourceVersion, r.APIVersion, r.Kind, r.Name, string(r.UID), o.finalizers[0]}
	docStart := uintptr(unsafe.Pointer(unsafe.StringData(doc)))
	for _, s := range kept {
		if p := uintptr(unsafe.Pointer(unsafe.StringData(s))); p >= docStart && p < docStart+uintptr(len(doc)) {
			t.Errorf("the collector's %q is cut from the object's document; want a copy of its own", s)
		}
	}
	if !reflect.DeepEqual(kept, want) {
		t.Errorf("the collector kept %q; want %q", kept, want)
	}
}
