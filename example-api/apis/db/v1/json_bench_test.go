package v1_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kjson "sigs.k8s.io/json"

	v1 "github.com/apigen-dev/apigen/example-api/apis/db/v1"
	"github.com/apigen-dev/apigen/example-api/bench"
	"github.com/apigen-dev/apigen/runtime/jsoncodec"
)

// benchDocument is the Database loadgen writes: ~1 KiB of JSON, 31 spec.parameters.
func benchDocument(b *testing.B) []byte {
	tmpl, err := bench.NewObjectTemplate(1024)
	if err != nil {
		b.Fatal(err)
	}
	return tmpl.Render(nil, "bench-object-0000001", "12345", 7)
}

// withManagedFields returns data, a Database, with the managedFields entry a server records
// for its update by one manager: every spec field, in fieldsV1.
func withManagedFields(b *testing.B, data []byte) []byte {
	var obj v1.Database
	if err := kjson.UnmarshalCaseSensitivePreserveInts(data, &obj); err != nil {
		b.Fatal(err)
	}
	fields := `{"f:spec":{".":{},"f:engine":{},"f:parameters":{".":{}`
	for _, k := range slices.Sorted(maps.Keys(obj.Spec.Parameters)) {
		fields += fmt.Sprintf(`,"f:%s":{}`, k)
	}
	fields += "}}}"
	now := metav1.NewTime(time.Date(2026, 11, 28, 8, 0, 0, 0, time.UTC))
	f := metav1.FieldsV1{}
	if err := f.UnmarshalJSON([]byte(fields)); err != nil {
		b.Fatal(err)
	}
	obj.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "loadgen", Operation: metav1.ManagedFieldsOperationUpdate,
		APIVersion: "db.example.com/v1", Time: &now, FieldsType: "FieldsV1", FieldsV1: &f}}
	out, err := json.Marshal(&obj)
	if err != nil {
		b.Fatal(err)
	}
	return out
}

// BenchmarkJSONCodec measures the generated codec of Database against its baseline in the
// same run, the reflective libraries the apimachinery serializer uses otherwise
// (sigs.k8s.io/json to decode, encoding/json to encode), and reports both and their ratio:
// `go test -run '^$' -bench JSONCodec ./example-api/apis/db/v1`. The object is loadgen's as
// a client sends it, and as a server stores and returns it (-managed: with managedFields).
func BenchmarkJSONCodec(b *testing.B) {
	plain := benchDocument(b)
	for _, doc := range []struct {
		name string
		data []byte
	}{{"", plain}, {"-managed", withManagedFields(b, plain)}} {
		benchmarkJSONCodec(b, doc.name, doc.data)
	}
}

// benchmarkJSONCodec is BenchmarkJSONCodec's decode<suffix> and encode<suffix> of data.
func benchmarkJSONCodec(b *testing.B, suffix string, data []byte) {
	var obj v1.Database
	if err := kjson.UnmarshalCaseSensitivePreserveInts(data, &obj); err != nil {
		b.Fatal(err)
	}
	b.Run("decode"+suffix, func(b *testing.B) {
		ratio(b, func() {
			var out v1.Database
			if !jsoncodec.Unmarshal(data, &out) {
				b.Fatal("the generated decoder refused the bench document")
			}
		}, func() {
			var out v1.Database
			if err := kjson.UnmarshalCaseSensitivePreserveInts(data, &out); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("encode"+suffix, func(b *testing.B) {
		buf := make([]byte, 0, 2048)
		ratio(b, func() {
			var ok bool
			if buf, ok = jsoncodec.Marshal(buf[:0], &obj); !ok {
				b.Fatal("the generated encoder failed")
			}
		}, func() {
			if _, err := json.Marshal(&obj); err != nil {
				b.Fatal(err)
			}
		})
	})
}

// ratio runs fast and baseline b.N times each and reports their times per operation
// (generated-ns/op, baseline-ns/op) and baseline/generated (speedup).
func ratio(b *testing.B, fast, baseline func()) {
	b.ReportAllocs()
	var fastTime, baseTime time.Duration
	for b.Loop() {
		start := time.Now()
		fast()
		mid := time.Now()
		baseline()
		fastTime += mid.Sub(start)
		baseTime += time.Since(mid)
	}
	b.ReportMetric(float64(fastTime.Nanoseconds())/float64(b.N), "generated-ns/op")
	b.ReportMetric(float64(baseTime.Nanoseconds())/float64(b.N), "baseline-ns/op")
	b.ReportMetric(float64(baseTime)/float64(fastTime), "speedup")
}

// BenchmarkReadBackCheck measures the watch cache's check before it keeps an object cold
// (runtime/storage/cacher's freezer): the object's JSON decoded again and compared with it
// (reflect.DeepEqual), the decode by Unmarshal (its strings a copy of the JSON) and by
// UnmarshalTransient (its strings the JSON's own bytes, as the check drops the decoded
// object at once), on the benchmark's Database with managedFields:
// `go test -run '^$' -bench ReadBackCheck ./example-api/apis/db/v1`.
func BenchmarkReadBackCheck(b *testing.B) {
	data := withManagedFields(b, benchDocument(b))
	var obj v1.Database
	if !jsoncodec.Unmarshal(data, &obj) {
		b.Fatal("the generated decoder refused the bench document")
	}
	for _, decode := range []struct {
		name      string
		unmarshal func([]byte, any) bool
	}{{"copied", jsoncodec.Unmarshal}, {"transient", jsoncodec.UnmarshalTransient}} {
		b.Run(decode.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var back v1.Database
				if !decode.unmarshal(data, &back) || !reflect.DeepEqual(&back, &obj) {
					b.Fatal("the document did not read back equal")
				}
			}
		})
	}
}
