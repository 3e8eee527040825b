package requestbody_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"

	"github.com/apigen-dev/apigen/runtime/endpoints/requestbody"
	"github.com/apigen-dev/apigen/runtime/registry/testapi"
	v1 "github.com/apigen-dev/apigen/runtime/registry/testapi/v1"
	"github.com/apigen-dev/apigen/runtime/registry/testapi/v1beta1"
	"github.com/apigen-dev/apigen/runtime/request"
	jsonserializer "github.com/apigen-dev/apigen/runtime/serializer/json"
)

// newDecoder returns the decoder of v1 Widget bodies into the internal version, over a
// scheme of the test group's internal, v1 and v1beta1 types (not its install package, whose registry
// and storage a fuzz build would instrument), with the serializers runtime/endpoints makes.
func newDecoder(tb testing.TB) *requestbody.Decoder {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{testapi.AddToScheme, v1.AddToScheme, v1beta1.AddToScheme} {
		if err := add(scheme); err != nil {
			tb.Fatal(err)
		}
	}
	ser := func(yaml, strict bool) runtime.Serializer {
		return jsonserializer.NewSerializer(scheme, scheme, json.SerializerOptions{Yaml: yaml, Strict: strict, StreamingCollectionsEncoding: true})
	}
	return &requestbody.Decoder{
		Serializers: requestbody.Serializers{JSON: ser(false, false), YAML: ser(true, false), StrictJSON: ser(false, true), StrictYAML: ser(true, true)},
		Kind:        v1.SchemeGroupVersion.WithKind("Widget"), HubGV: testapi.SchemeGroupVersion,
		Defaulter: scheme, UnsafeConvertor: runtime.UnsafeObjectConvertor(scheme),
	}
}

// TestDecode checks what a create's body decodes to, and the 400 and 415 errors in
// kube-apiserver's words, for each Content-Type and fieldValidation directive.
func TestDecode(t *testing.T) {
	t.Parallel()
	d := newDecoder(t)
	const widget = `{"apiVersion":"test.apigen.dev/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"color":"red"%s}}`
	for _, tc := range []struct {
		name, contentType, directive, body string
		// want is the decoded Widget's spec.color and spec.size, or the error's code and message.
		color    string
		size     int32
		warnings []string
		code     int32
		message  string
	}{
		{name: "json defaulted and converted", contentType: "application/json", directive: metav1.FieldValidationStrict,
			body: strings.Replace(widget, "%s", "", 1), color: "red", size: 1},
		{name: "no content type is json", directive: metav1.FieldValidationStrict,
			body: strings.Replace(widget, "%s", `,"size":3`, 1), color: "red", size: 3},
		{name: "yaml", contentType: "application/yaml; charset=utf-8", directive: metav1.FieldValidationStrict,
			body: "apiVersion: test.apigen.dev/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  color: blue\n", color: "blue", size: 1},
		{name: "strict unknown field", contentType: "application/json", directive: metav1.FieldValidationStrict,
			body: strings.Replace(widget, "%s", `,"x":1`, 1), code: 400,
			message: `Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.x"`},
		{name: "warn unknown and duplicate fields", contentType: "application/json", directive: metav1.FieldValidationWarn,
			body: strings.Replace(widget, "%s", `,"x":1,"color":"blue"`, 1), color: "blue", size: 1,
			warnings: []string{`unknown field "spec.x"`, `duplicate field "spec.color"`}},
		{name: "ignore unknown field", contentType: "application/yaml", directive: metav1.FieldValidationIgnore,
			body: "apiVersion: test.apigen.dev/v1\nkind: Widget\nspec:\n  x: 1\n", size: 1},
		{name: "wrong version", contentType: "application/json", directive: metav1.FieldValidationStrict,
			body: `{"apiVersion":"test.apigen.dev/v1beta1","kind":"Widget"}`, code: 400,
			message: `the API version in the data (test.apigen.dev/v1beta1) does not match the expected API version (test.apigen.dev/v1)`},
		{name: "wrong kind", contentType: "application/json", directive: metav1.FieldValidationStrict,
			body: `{"apiVersion":"test.apigen.dev/v1","kind":"Gadget"}`, code: 400,
			message: `the kind in the data (Gadget) does not match the expected kind (Widget)`},
		{name: "not an object", contentType: "application/json", directive: metav1.FieldValidationStrict,
			body: "\x01\x02[", code: 400,
			message: `the object provided is unrecognized (must be of type Widget): couldn't get version/kind; json parse error: invalid character '\x01' looking for beginning of value (01025b)`},
		{name: "truncated object", contentType: "application/json", directive: metav1.FieldValidationStrict,
			body: `{"metadata":{"name":"a-rather-long-name"`, code: 400,
			message: `the object provided is unrecognized (must be of type Widget): couldn't get version/kind; json parse error: unexpected end of JSON input ({"metadata":{"name":"a-rather- ...)`},
		{name: "unknown media type", contentType: "text/plain", directive: metav1.FieldValidationStrict, body: "{}", code: 415,
			message: `the body of the request was in an unknown format (text/plain) - accepted media types include: application/json, application/yaml`},
		{name: "protobuf of a kind not built in", contentType: "application/vnd.kubernetes.protobuf", directive: metav1.FieldValidationStrict, body: "k8s\x00", code: 415,
			message: `the body of the request was in an unknown format (application/vnd.kubernetes.protobuf) - accepted media types include: application/json, application/yaml`},
		{name: "malformed media type", contentType: "application/json; =", directive: metav1.FieldValidationStrict, body: "{}", code: 415,
			message: `the body of the request was in an unknown format (application/json; =) - accepted media types include: application/json, application/yaml`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest("POST", "/apis/test.apigen.dev/v1/namespaces/a/widgets", strings.NewReader(tc.body))
			if tc.contentType != "" {
				req.Header.Set("Content-Type", tc.contentType)
			}
			obj, warnings, err := d.Decode(req, []byte(tc.body), tc.directive)
			if tc.code != 0 {
				status, ok := err.(apierrors.APIStatus)
				if !ok || status.Status().Code != tc.code || status.Status().Message != tc.message {
					t.Fatalf("Decode = %v, want %d %q", err, tc.code, tc.message)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			w, ok := obj.(*testapi.Widget)
			if !ok || w.Spec.Color != tc.color || w.Spec.Size != tc.size {
				t.Fatalf("Decode = %#v, want an internal Widget of color %q, size %d", obj, tc.color, tc.size)
			}
			if diff := cmp.Diff(tc.warnings, warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestWithDocument checks the document a create carries to validation: the JSON body, a YAML
// body as JSON, none for another media type or a YAML body that does not convert.
func TestWithDocument(t *testing.T) {
	t.Parallel()
	d := newDecoder(t)
	for _, tc := range []struct{ contentType, body, want string }{
		{"", `{"spec":{}}`, `{"spec":{}}`},
		{"application/json", `{"spec":{}}`, `{"spec":{}}`},
		{"application/yaml", "spec:\n  size: 0\n", `{"spec":{"size":0}}`},
		{"application/yaml", "a: [", ""},
		{"application/vnd.kubernetes.protobuf", "k8s\x00", ""},
	} {
		req := httptest.NewRequest("POST", "/", strings.NewReader(tc.body))
		if tc.contentType != "" {
			req.Header.Set("Content-Type", tc.contentType)
		}
		got := string(request.DocumentFrom(d.WithDocument(context.Background(), req, []byte(tc.body))).For(d.Kind))
		if got != tc.want {
			t.Errorf("%q as %q: document %q, want %q", tc.body, tc.contentType, got, tc.want)
		}
	}
}
