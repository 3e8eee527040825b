package customresource

import (
	"slices"
	"sync/atomic"
	"testing"

	"github.com/apigen-dev/apigen/runtime/storage/etcd3"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
)

// TestServedResources: ServedResources lists what is served, preferred version first, with
// the preferred version's Store; OnChange listeners hear every Set and every Remove of a
// served resource, not a Remove of an unknown one.
func TestServedResources(t *testing.T) {
	client, _ := etcdtest.Run(t)
	h, err := NewHandler(Config{Storage: &etcd3.StorageFactory{Client: client, Prefix: "/registry"}})
	if err != nil {
		t.Fatal(err)
	}
	var changes atomic.Int32
	h.OnChange(func() { changes.Add(1) })
	if err := h.Set(cronTabDefinition(t, false)); err != nil {
		t.Fatal(err)
	}
	got := h.ServedResources()
	if len(got) != 1 {
		t.Fatalf("ServedResources = %+v", got)
	}
	r := got[0]
	if r.Group != "stable.example.com" || r.Plural != "crontabs" || r.Kind != "CronTab" || !r.Namespaced ||
		!slices.Equal(r.Versions, []string{"v1", "v1beta1"}) || r.Store == nil || r.Store != h.lookup("stable.example.com", "crontabs").stores["v1"] {
		t.Errorf("ServedResources = %+v", r)
	}
	h.Remove("stable.example.com", "missing")
	h.Remove("stable.example.com", "crontabs")
	if n := changes.Load(); n != 2 {
		t.Errorf("OnChange listeners called %d times, want 2 (Set, Remove)", n)
	}
	if got := h.ServedResources(); len(got) != 0 {
		t.Errorf("ServedResources after Remove = %+v", got)
	}
}
