package db_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	_ "github.com/apigen-dev/apigen/example-api/apis/db/v1"       // registers v1's JSON codecs
	_ "github.com/apigen-dev/apigen/example-api/apis/db/v1alpha1" // registers v1alpha1's JSON codecs
	"github.com/apigen-dev/apigen/runtime/jsoncodec"
	"github.com/apigen-dev/apigen/runtime/jsoncodec/jsoncodectest"
)

// dbGroup is the import path of the hub; v1's and v1alpha1's lie below it.
const dbGroup = "github.com/apigen-dev/apigen/example-api/apis/db"

// dbTypes returns the db group's types with registered codecs: the hub's and both versions'
// (each package registers its own in zz_generated.json.go's init).
func dbTypes() []reflect.Type {
	var out []reflect.Type
	for _, typ := range jsoncodec.RegisteredTypes() {
		if strings.HasPrefix(typ.PkgPath(), dbGroup) {
			out = append(out, typ)
		}
	}
	return out
}

// FuzzJSONCodec decodes arbitrary documents into every type of the db group: the fast path
// may refuse them, but what it accepts it must decode as sigs.k8s.io/json does and encode
// back as encoding/json does (jsoncodectest.CheckDecode). The seeds are random objects'
// documents and hand-written ones; plain go test runs only them. It lives here, beside the
// hub, rather than in install (whose TestJSONCodecs checks the same codecs on random
// objects): go test -fuzz instruments every package of the test binary, and this one's
// dependency tree is the group's types and jsoncodec, not the install package's registry,
// CEL and OpenAPI.
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
