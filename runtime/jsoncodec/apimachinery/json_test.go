package apimachinery_test

import (
	"testing"

	_ "github.com/apigen-dev/apigen/runtime/jsoncodec/apimachinery" // registers the codecs
	"github.com/apigen-dev/apigen/runtime/jsoncodec/jsoncodectest"
)

// TestJSONCodecs holds every shared codec (all of them are of meta/v1 types) to
// encoding/json and sigs.k8s.io/json on 200 random objects of each type and mutations of their
// documents (jsoncodectest.Check).
func TestJSONCodecs(t *testing.T) {
	jsoncodectest.CheckPackage(t, "k8s.io/apimachinery/pkg/apis/meta/v1", 200, jsoncodectest.Filler(1))
}
