package jsoncodec

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/apigen-dev/apigen/generators/load"
	"github.com/apigen-dev/apigen/generators/model"
)

var update = flag.Bool("update", false, "rewrite the generated files and golden files this package's tests compare with")

// TestSharedCodecs regenerates runtime/jsoncodec/apimachinery/zz_generated.json.go and
// zz_generated.shared.go from testdata/input/shared with the real loader and the apimachinery
// version in go.mod, and fails when the committed files differ (-update rewrites them).
func TestSharedCodecs(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	api, err := load.Load(root, "./generators/jsoncodec/testdata/input/shared/v1")
	if ds, ok := err.(model.Diagnostics); err != nil && (!ok || ds.HasErrors()) {
		t.Fatalf("cannot load testdata/input/shared: %v", err)
	}
	codecs, names, err := generateShared(api)
	if err != nil {
		t.Fatal(err)
	}
	list, err := sharedNamesFile(names)
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string][]byte{
		filepath.Join(root, "runtime", "jsoncodec", "apimachinery", FileName):    codecs,
		filepath.Join(root, "generators", "jsoncodec", "zz_generated.shared.go"): list,
	} {
		if *update {
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s is stale (%v): run go test ./generators/jsoncodec -run TestSharedCodecs -update", path, err)
		}
	}
	for _, n := range []string{"ObjectMeta", "ListMeta", "TypeMeta", "OwnerReference", "ManagedFieldsEntry", "Condition", "LabelSelector", "Status", "DeleteOptions"} {
		if names["k8s.io/apimachinery/pkg/apis/meta/v1."+n] != n {
			t.Errorf("metav1.%s is not shared as %s", n, n)
		}
	}
	for _, n := range []string{"k8s.io/apimachinery/pkg/apis/meta/v1.Time", "k8s.io/apimachinery/pkg/api/resource.Quantity"} {
		if _, ok := names[n]; ok {
			t.Errorf("%s, which has JSON methods, is shared", n)
		}
	}
}
