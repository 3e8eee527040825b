package requestbody_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/apigen-dev/apigen/runtime/endpoints/requestbody"
	"github.com/apigen-dev/apigen/runtime/registry/testapi"
)

// FuzzDecodeBody feeds arbitrary bodies, in every accepted Content-Type and field-validation
// directive, to the decoding of a create: it must never panic, and must either return a
// Widget of the internal version or a 400 BadRequest or 415 UnsupportedMediaType API error,
// as kube-apiserver answers malformed bodies.
func FuzzDecodeBody(f *testing.F) {
	d := newDecoder(f)
	for _, seed := range []string{
		`{"apiVersion":"test.apigen.dev/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"color":"red","size":3}}`,
		`{"apiVersion":"test.apigen.dev/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"color":"red","color":"blue"}}`,
		"apiVersion: test.apigen.dev/v1\nkind: Widget\nmetadata:\n  name: w\n",
		"a: &a [*a]\n",
		`{"apiVersion":"test.apigen.dev/v1","kind":"Widget","spec":{"size":{"a":{"a":1}}}}`,
		`{"kind":"Widget"}`, `[]`, `null`, ``,
	} {
		for _, ct := range []string{requestbody.MediaTypeJSON, requestbody.MediaTypeYAML, "application/vnd.kubernetes.protobuf", "text/plain"} {
			f.Add(seed, ct, metav1.FieldValidationStrict)
			f.Add(seed, ct, metav1.FieldValidationIgnore)
		}
	}
	f.Fuzz(func(t *testing.T, body, contentType, directive string) {
		switch directive {
		case metav1.FieldValidationStrict, metav1.FieldValidationWarn, metav1.FieldValidationIgnore:
		default:
			return
		}
		req := httptest.NewRequest("POST", "/apis/test.apigen.dev/v1/namespaces/a/widgets", strings.NewReader(body))
		req.Header.Set("Content-Type", contentType)
		obj, _, err := d.Decode(req, []byte(body), directive)
		if err != nil {
			if !apierrors.IsBadRequest(err) && !apierrors.IsUnsupportedMediaType(err) {
				t.Fatalf("%q as %q: %v, want a 400 or 415 API error", body, contentType, err)
			}
			return
		}
		if _, ok := obj.(*testapi.Widget); !ok {
			t.Fatalf("%q as %q decoded to %T", body, contentType, obj)
		}
	})
}
