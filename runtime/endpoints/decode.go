package endpoints

import (
	"context"
	"encoding/hex"
	"fmt"
	"mime"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/apigen-dev/apigen/runtime/request"
)

// decodeBody decodes a POST or PUT body (JSON or YAML by Content-Type) in the wire version
// (the URL's, or the kind of a rest.GroupVersionKindProvider storage), defaults it and
// converts it to the storage's version, as kube's create handler. directive is the effective
// fieldValidation: unknown or duplicate fields fail the request (Strict), come back as
// warnings (Warn) or are dropped (Ignore). A body that does not decode is 400 BadRequest in
// the words of kube's handlers.transformDecodeError: `Database in version "v1" cannot be
// handled as a Database: strict decoding error: unknown field "spec.x"`. The body's
// apiVersion and kind must be the wire kind's (400 otherwise). Kubernetes' protobuf encoding
// is read for the built-in kinds runtime/serializer/protobuf knows.
func (s *scope) decodeBody(req *http.Request, body []byte, directive string) (runtime.Object, []string, error) {
	if isProtobuf(req) && builtinProtobuf.Handles(s.kind.GroupVersion()) {
		// A built-in kind sent by a typed client (kubectl create role): read it as the JSON it
		// stands for. Protobuf has no unknown fields to report.
		data, _, err := builtinProtobuf.ToJSON(body)
		if err != nil {
			return nil, nil, apierrors.NewBadRequest(err.Error())
		}
		return s.decode(s.json, data, metav1.FieldValidationIgnore, s.decodeError(data))
	}
	ser, err := s.inputSerializer(req, directive != metav1.FieldValidationIgnore)
	if err != nil {
		return nil, nil, err
	}
	return s.decode(ser, body, directive, s.decodeError(body))
}

// withDocument returns ctx carrying the body of a create or update as the request's
// document (request.Document, in the wire kind), which validation reads to tell a key the
// client left out from one it sent with a zero value: the JSON body itself, or a YAML body
// converted to JSON. A protobuf body (a built-in kind from a typed client) and a body that
// cannot be converted carry none: validation then judges presence by what the object's JSON
// encoding writes.
func (s *scope) withDocument(ctx context.Context, req *http.Request, body []byte) context.Context {
	mediaType, _, err := mime.ParseMediaType(req.Header.Get("Content-Type"))
	switch {
	case req.Header.Get("Content-Type") == "" || err == nil && mediaType == mediaJSON:
		return request.WithDocument(ctx, request.NewDocument(s.kind, body))
	case err == nil && mediaType == mediaYAML:
		if data, err := utilyaml.ToJSON(body); err == nil {
			return request.WithDocument(ctx, request.NewDocument(s.kind, data))
		}
	}
	return ctx
}

// decodeError returns the error of a body that did not decode, as kube's
// handlers.transformDecodeError: 400 BadRequest naming the kind the body gave, or, when it
// gave none, the kind expected and the start of the body.
func (s *scope) decodeError(body []byte) func(*schema.GroupVersionKind, error) error {
	return func(gvk *schema.GroupVersionKind, err error) error {
		if gvk != nil && gvk.Kind != "" {
			return apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", gvk.Kind, gvk.Version, s.kind.Kind, err))
		}
		return apierrors.NewBadRequest(fmt.Sprintf("the object provided is unrecognized (must be of type %s): %v (%s)", s.kind.Kind, err, summarizeData(body, 30)))
	}
}

// summarizeData is at most the first n bytes of data for an error message: as text when it
// looks like JSON, else in hex, as kube's handlers.summarizeData.
func summarizeData(data []byte, n int) string {
	more := ""
	if len(data) > n {
		data, more = data[:n], " ..."
	}
	switch {
	case len(data) == 0:
		return "<empty>"
	case data[0] == '{':
		return string(data) + more
	}
	return hex.EncodeToString(data) + more
}

// decodeWith is decodeBody with a chosen serializer, for patches: a decoding error is 400
// BadRequest with the decoder's own message.
func (s *scope) decodeWith(ser runtime.Serializer, body []byte, directive string) (runtime.Object, []string, error) {
	return s.decode(ser, body, directive, func(_ *schema.GroupVersionKind, err error) error { return apierrors.NewBadRequest(err.Error()) })
}

// decode decodes body in the body's version, checks it is the wire version, defaults it,
// then converts it to the storage's version without a copy; decodeErr makes the error of a
// body that does not decode.
func (s *scope) decode(ser runtime.Serializer, body []byte, directive string, decodeErr func(*schema.GroupVersionKind, error) error) (runtime.Object, []string, error) {
	defaultGVK := s.kind
	obj, gvk, err := ser.Decode(body, &defaultGVK, nil)
	var warnings []string
	if err != nil {
		strictErr, isStrict := runtime.AsStrictDecodingError(err)
		switch {
		case isStrict && obj != nil && directive == metav1.FieldValidationWarn:
			for _, e := range strictErr.Errors() {
				warnings = append(warnings, e.Error())
			}
		case isStrict && obj != nil && directive == metav1.FieldValidationIgnore:
		default:
			return nil, nil, decodeErr(gvk, err)
		}
	}
	if gvk == nil || gvk.GroupVersion() != s.kind.GroupVersion() {
		return nil, nil, apierrors.NewBadRequest(fmt.Sprintf(
			"the API version in the data (%s) does not match the expected API version (%s)", gvkVersion(gvk), s.kind.GroupVersion()))
	}
	if gvk.Kind != s.kind.Kind {
		return nil, nil, apierrors.NewBadRequest(fmt.Sprintf(
			"the kind in the data (%s) does not match the expected kind (%s)", gvk.Kind, s.kind.Kind))
	}
	s.Defaulter.Default(obj)
	if s.hubGV == s.kind.GroupVersion() {
		return obj, warnings, nil
	}
	// obj is this request's own, so the conversion may share its memory (as the versioning
	// codec kube-apiserver decodes bodies with converts with runtime.UnsafeObjectConvertor).
	hub, err := s.UnsafeConvertor.ConvertToVersion(obj, s.hubGV)
	if _, isStatus := err.(apierrors.APIStatus); isStatus {
		return nil, nil, err // a convertor's own Status (a failed conversion webhook's 500)
	}
	if err != nil {
		return nil, nil, apierrors.NewBadRequest(fmt.Sprintf("cannot convert %s to %s: %v", s.kind, s.hubGV, err))
	}
	return hub, warnings, nil
}

// gvkVersion is gvk's group version, "" for none.
func gvkVersion(gvk *schema.GroupVersionKind) string {
	if gvk == nil {
		return ""
	}
	return gvk.GroupVersion().String()
}
