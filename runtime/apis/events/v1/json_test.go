package v1_test

import (
	"testing"

	_ "github.com/apigen-dev/apigen/runtime/apis/events/v1" // registers the codecs
	"github.com/apigen-dev/apigen/runtime/jsoncodec/jsoncodectest"
)

// TestJSONCodecs holds the generated JSON codecs of every struct of the package to
// encoding/json and sigs.k8s.io/json on 200 random objects of each type and mutations of
// their documents (jsoncodectest.Check).
func TestJSONCodecs(t *testing.T) {
	jsoncodectest.CheckPackage(t, "github.com/apigen-dev/apigen/runtime/apis/events/v1", 200, jsoncodectest.Filler(1))
}
