package cacher_test

import (
	"context"
	"strconv"
	"testing"
	"unsafe"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/apigen-dev/apigen/runtime/storage/cacher"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
	"github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi"
)

// TestCachedObjectsShareMetadata: the objects a cache holds share equal managed-fields
// values (fieldsV1 bytes, manager) and namespaces instead of each holding a copy, whether
// the cache read them in its list or from its watch; an object whose fields differ keeps
// its own, and every object still reads as it was written.
func TestCachedObjectsShareMetadata(t *testing.T) {
	t.Parallel()
	client, _ := etcdtest.Run(t)
	prefix := newPrefix()
	ctx := context.Background()
	fields := func(raw string) []metav1.ManagedFieldsEntry {
		return []metav1.ManagedFieldsEntry{{Manager: "kubectl-client-side-apply", Operation: metav1.ManagedFieldsOperationUpdate,
			APIVersion: "test.apigen.dev/v1", FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(raw)}}}
	}
	const same, other = `{"f:spec":{"f:color":{},"f:size":{}}}`, `{"f:spec":{"f:size":{}}}`
	raw := newCacher(t, client, prefix, nil, cacher.Config{}) // the first two widgets come to it by its watch
	revs := map[string]int64{}
	for _, w := range []struct{ name, raw string }{{"a", same}, {"b", same}, {"c", other}} {
		out := &testapi.Widget{}
		in := &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Name: w.name, Namespace: "ns", ManagedFields: fields(w.raw)}}
		if err := raw.Create(ctx, "/ns/"+w.name, in, out); err != nil {
			t.Fatal(err)
		}
		rev, err := strconv.ParseInt(out.ResourceVersion, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		revs[w.name] = rev
	}
	// A second cache over the same keys reads all three in its list.
	listed := newCacher(t, client, prefix, nil, cacher.Config{})
	for name, c := range map[string]*cacher.Cacher{"watch": raw, "list": listed} {
		objs := map[string]*testapi.Widget{}
		for _, n := range []string{"a", "b", "c"} {
			waitFor(t, "the cache to hold widget "+n, func() bool {
				obj, ok := c.DecodedObject("/ns/"+n, revs[n])
				if ok {
					objs[n] = obj.(*testapi.Widget)
				}
				return ok
			})
		}
		a, b, cw := objs["a"].ManagedFields[0], objs["b"].ManagedFields[0], objs["c"].ManagedFields[0]
		if string(a.FieldsV1.Raw) != same || string(b.FieldsV1.Raw) != same || string(cw.FieldsV1.Raw) != other {
			t.Fatalf("%s: fieldsV1 %s, %s, %s; want %s, %s, %s", name, a.FieldsV1.Raw, b.FieldsV1.Raw, cw.FieldsV1.Raw, same, same, other)
		}
		if unsafe.SliceData(a.FieldsV1.Raw) != unsafe.SliceData(b.FieldsV1.Raw) {
			t.Errorf("%s: two widgets with equal fieldsV1 hold a copy each; want one shared", name)
		}
		if unsafe.StringData(a.Manager) != unsafe.StringData(cw.Manager) || unsafe.StringData(objs["a"].Namespace) != unsafe.StringData(objs["c"].Namespace) {
			t.Errorf("%s: equal managers or namespaces are held twice; want one shared", name)
		}
	}
}
