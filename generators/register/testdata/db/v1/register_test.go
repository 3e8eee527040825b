package v1_test

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	db "github.com/apigen-dev/apigen/generators/register/testdata/db"
	v1 "github.com/apigen-dev/apigen/generators/register/testdata/db/v1"
	"github.com/apigen-dev/apigen/generators/register/testdata/db/v1alpha1"
)

// TestAddToScheme registers the hub and both versions and checks the kinds each one adds.
func TestAddToScheme(t *testing.T) {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{db.AddToScheme, v1.AddToScheme, v1alpha1.AddToScheme} {
		if err := add(s); err != nil {
			t.Fatal(err)
		}
	}
	for gv, want := range map[schema.GroupVersion][]string{
		{Group: "db.example.com", Version: runtime.APIVersionInternal}: {"Backup", "BackupList", "Database", "DatabaseList"},
		{Group: "db.example.com", Version: "v1"}:                       {"Backup", "BackupList", "Database", "DatabaseList"},
		{Group: "db.example.com", Version: "v1alpha1"}:                 {"Database", "DatabaseList"},
	} {
		var got []string
		for gvk := range s.AllKnownTypes() {
			if gvk.GroupVersion() == gv {
				got = append(got, gvk.Kind)
			}
		}
		// metav1.AddToGroupVersion adds the meta kinds to each version and WatchEvent to
		// the internal version as well.
		want = append(want, "WatchEvent")
		if gv.Version != runtime.APIVersionInternal {
			want = append(want, "CreateOptions", "DeleteOptions", "GetOptions", "ListOptions", "PatchOptions", "UpdateOptions")
		}
		slices.Sort(want)
		slices.Sort(got)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("kinds of %s mismatch (-want +got):\n%s", gv, diff)
		}
	}
	if got, want := v1.Kind("Database"), (schema.GroupKind{Group: "db.example.com", Kind: "Database"}); got != want {
		t.Errorf("Kind(Database) = %v, want %v", got, want)
	}
	if got, want := db.Resource("databases"), (schema.GroupResource{Group: "db.example.com", Resource: "databases"}); got != want {
		t.Errorf("Resource(databases) = %v, want %v", got, want)
	}
}
