package install_test

import (
	"testing"

	_ "github.com/apigen-dev/apigen/example-api/apis/db/install" // links the hub and both versions
	"github.com/apigen-dev/apigen/runtime/jsoncodec/jsoncodectest"
)

// dbPackages are the packages of the db group whose generated JSON codecs the tests check.
var dbPackages = []string{
	"github.com/apigen-dev/apigen/example-api/apis/db",
	"github.com/apigen-dev/apigen/example-api/apis/db/v1",
	"github.com/apigen-dev/apigen/example-api/apis/db/v1alpha1",
}

// TestJSONCodecs holds the generated JSON codecs of every struct of the hub and both
// versions to encoding/json and sigs.k8s.io/json on 200 random objects of each type and
// mutations of their documents (jsoncodectest.Check). The group's fuzz target,
// FuzzJSONCodec, is beside the hub (example-api/apis/db), whose dependency tree is smaller.
func TestJSONCodecs(t *testing.T) {
	for i, path := range dbPackages {
		t.Run(path, func(t *testing.T) {
			jsoncodectest.CheckPackage(t, path, 200, jsoncodectest.Filler(int64(i)))
		})
	}
}
