package openapi

import (
	"path/filepath"
	"testing"

	"github.com/apigen-dev/apigen/generators/internal/golden"
)

// TestSharedDefinitions regenerates runtime/openapi/apimachinery/zz_generated.openapi.go and
// zz_generated.shared.go from testdata/input/shared with the real loader and the apimachinery
// version in go.mod, and fails when the committed files differ (-update rewrites them).
func TestSharedDefinitions(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	api := golden.Load(t, "./generators/openapi/testdata/input/shared/v1")
	defs, names, err := generateShared(api)
	if err != nil {
		t.Fatal(err)
	}
	list, err := sharedNamesFile(names)
	if err != nil {
		t.Fatal(err)
	}
	golden.CheckCommitted(t, map[string][]byte{
		filepath.Join(root, "runtime", "openapi", "apimachinery", fileName):    defs,
		filepath.Join(root, "generators", "openapi", "zz_generated.shared.go"): list,
	}, "go test ./generators/openapi -run TestSharedDefinitions -update")
	for _, n := range []string{"k8s.io/apimachinery/pkg/apis/meta/v1.ObjectMeta", "k8s.io/apimachinery/pkg/apis/meta/v1.Status",
		"k8s.io/apimachinery/pkg/api/resource.Quantity", "k8s.io/apimachinery/pkg/util/intstr.IntOrString"} {
		if !sharedTypes[n] {
			t.Errorf("%s is not shared", n)
		}
	}
}
