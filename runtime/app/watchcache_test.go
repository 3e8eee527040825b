package app

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestParseWatchCacheSizes: --watch-cache-sizes entries are resource[.group]#size, the group
// omitted for the core group, as kube-apiserver's.
func TestParseWatchCacheSizes(t *testing.T) {
	got, err := parseWatchCacheSizes([]string{"databases.db.example.com#5000", "namespaces#0", "apiservices.apiregistration.k8s.io#10"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[schema.GroupResource]int{
		{Group: "db.example.com", Resource: "databases"}:           5000,
		{Resource: "namespaces"}:                                   0,
		{Group: "apiregistration.k8s.io", Resource: "apiservices"}: 10,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sizes (-want +got):\n%s", diff)
	}
	for _, bad := range []string{"databases", "#5", "databases#x", "databases#-1"} {
		if _, err := parseWatchCacheSizes([]string{bad}); err == nil {
			t.Errorf("parseWatchCacheSizes(%q) succeeded", bad)
		}
	}
}
