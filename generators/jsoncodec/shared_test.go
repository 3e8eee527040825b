package jsoncodec

import (
	"path/filepath"
	"testing"

	"github.com/apigen-dev/apigen/generators/internal/golden"
)

// TestSharedCodecs regenerates runtime/jsoncodec/apimachinery/zz_generated.json.go and
// zz_generated.shared.go from testdata/input/shared with the real loader and the apimachinery
// version in go.mod, and fails when the committed files differ (-update rewrites them).
func TestSharedCodecs(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	api := golden.Load(t, "./generators/jsoncodec/testdata/input/shared/v1")
	codecs, names, err := generateShared(api)
	if err != nil {
		t.Fatal(err)
	}
	list, err := sharedNamesFile(names)
	if err != nil {
		t.Fatal(err)
	}
	golden.CheckCommitted(t, map[string][]byte{
		filepath.Join(root, "runtime", "jsoncodec", "apimachinery", FileName):    codecs,
		filepath.Join(root, "generators", "jsoncodec", "zz_generated.shared.go"): list,
	}, "go test ./generators/jsoncodec -run TestSharedCodecs -update")
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
