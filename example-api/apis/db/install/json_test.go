package install_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	_ "github.com/apigen-dev/apigen/example-api/apis/db/install" // links the hub and both versions
	"github.com/apigen-dev/apigen/runtime/jsoncodec"
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
// mutations of their documents (jsoncodectest.Check).
func TestJSONCodecs(t *testing.T) {
	for i, path := range dbPackages {
		t.Run(path, func(t *testing.T) {
			jsoncodectest.CheckPackage(t, path, 200, jsoncodectest.Filler(int64(i)))
		})
	}
}

// dbTypes returns the db group's types with registered codecs.
func dbTypes() []reflect.Type {
	var out []reflect.Type
	for _, typ := range jsoncodec.RegisteredTypes() {
		if strings.HasPrefix(typ.PkgPath(), dbPackages[0]) {
			out = append(out, typ)
		}
	}
	return out
}

// FuzzJSONCodec decodes arbitrary documents into every type of the db group: the fast path
// may refuse them, but what it accepts it must decode as sigs.k8s.io/json does and encode
// back as encoding/json does (jsoncodectest.CheckDecode). The seeds are random objects'
// documents and hand-written ones; plain go test runs only them.
func FuzzJSONCodec(f *testing.F) {
	types := dbTypes()
	if len(types) == 0 {
		f.Fatal("no db type has a registered JSON codec")
	}
	filler := jsoncodectest.Filler(7)
	for _, typ := range types {
		obj := reflect.New(typ).Interface()
		filler.Fill(obj)
		if data, err := json.Marshal(obj); err == nil {
			f.Add(data)
		}
	}
	for _, doc := range []string{
		`{"kind":"Database","apiVersion":"db.example.com/v1","metadata":{"name":"a","labels":{"x":"y"}},"spec":{"engine":"postgres","replicas":3,"storage":"1Gi"}}`,
		`{"metadata":{"creationTimestamp":null,"managedFields":[{"fieldsV1":{"f:spec":{}}}]},"spec":{"parameters":{"a":"b","a":"c"}}}`,
		`{"items":[{},null,{"spec":null}],"metadata":{"remainingItemCount":-1}}`,
		`{"spec":{"replicas":1e3}}`, `{"spec":{"replicas":"3"}}`, `{"\u0073pec":{}}`, `{"spec":{}} x`, `[]`, `null`, ``,
	} {
		f.Add([]byte(doc))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, typ := range types {
			jsoncodectest.CheckDecode(t, data, reflect.New(typ).Interface(), false)
		}
	})
}
