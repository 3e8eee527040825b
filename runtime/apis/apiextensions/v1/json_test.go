package v1_test

import (
	"fmt"
	"testing"

	"sigs.k8s.io/randfill"

	v1 "github.com/apigen-dev/apigen/runtime/apis/apiextensions/v1"
	"github.com/apigen-dev/apigen/runtime/jsoncodec/jsoncodectest"
)

// TestJSONCodecs holds the generated JSON codecs of every struct of the package to
// encoding/json and sigs.k8s.io/json on 200 random objects of each type and mutations of
// their documents (jsoncodectest.Check). JSON values hold valid JSON, as decoding leaves them;
// a schema's subschemas are leaves (random recursive schemas grow exponentially).
func TestJSONCodecs(t *testing.T) {
	depth := 0
	filler := jsoncodectest.Filler(1, func(s *v1.JSONSchemaProps, c randfill.Continue) {
		depth++
		defer func() { depth-- }()
		if depth > 1 {
			s.Type, s.Format = c.String(0), c.String(0)
			return
		}
		c.FillNoCustom(s)
	}, func(j *v1.JSON, c randfill.Continue) {
		switch c.Intn(4) {
		case 0:
			j.Raw = []byte(fmt.Sprintf("%d", c.Int63()))
		case 1:
			j.Raw = []byte(fmt.Sprintf(`{"a":[%q,true,null]}`, c.String(0)))
		case 2:
			j.Raw = []byte(fmt.Sprintf("%q", c.String(0)))
		}
	})
	jsoncodectest.CheckPackage(t, "github.com/apigen-dev/apigen/runtime/apis/apiextensions/v1", 200, filler)
}
