//go:build fieldsv1string

package apimachinery_test

import (
	"fmt"
	"testing"
	"unsafe"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/apigen-dev/apigen/runtime/jsoncodec"
	_ "github.com/apigen-dev/apigen/runtime/jsoncodec/apimachinery" // registers the codecs
)

// TestFieldsV1Interned: built as make builds the servers (-tags=fieldsv1string), objects
// decoded with the same managedFields share one copy of their field set, as the watch cache
// holds them.
func TestFieldsV1Interned(t *testing.T) {
	var metas [2]metav1.ObjectMeta
	for i := range metas {
		doc := fmt.Sprintf(`{"name":"db-%d","managedFields":[{"manager":"kubectl","operation":"Apply","apiVersion":"db.example.com/v1",`+
			`"fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:engine":{},"f:parameters":{"f:p000":{}}}}}]}`, i)
		if !jsoncodec.Unmarshal([]byte(doc), &metas[i]) {
			t.Fatalf("cannot decode %s", doc)
		}
	}
	a, b := metas[0].ManagedFields[0].FieldsV1.GetRawString(), metas[1].ManagedFields[0].FieldsV1.GetRawString()
	if a != `{"f:spec":{"f:engine":{},"f:parameters":{"f:p000":{}}}}` || a != b {
		t.Fatalf("field sets %s and %s", a, b)
	}
	if unsafe.StringData(a) != unsafe.StringData(b) {
		t.Errorf("two objects' equal field sets are two copies; want one, interned (fieldsv1string)")
	}
}
