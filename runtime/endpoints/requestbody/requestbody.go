// Package requestbody decodes the body of a create, update or patch into the object storage
// keeps, as kube-apiserver's handlers do (k8s.io/apiserver's endpoints/handlers: create.go
// and update.go, with negotiation.NegotiateInputSerializer and transformDecodeError): the
// serializer by Content-Type (JSON, YAML, or Kubernetes' protobuf for the built-in kinds
// runtime/serializer/protobuf knows), unknown and duplicate fields by the fieldValidation
// directive (Strict fails, Warn returns them as warnings, Ignore drops them), the body's
// apiVersion and kind held to the wire kind, defaulting, and the conversion to the storage
// version; what fails is a 400 BadRequest or 415 UnsupportedMediaType in kube-apiserver's
// words.
//
// runtime/endpoints' handlers decode with it. It is a package of its own so that its fuzz
// target (FuzzDecodeBody) builds with this package's dependencies only: go test -fuzz
// instruments every package of the test binary, and endpoints' tree is nearly three times
// this one.
package requestbody

import (
	"context"
	"fmt"
	"mime"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/apigen-dev/apigen/runtime/request"
	"github.com/apigen-dev/apigen/runtime/serializer/protobuf"
)

// The media types of the bodies a create or update accepts (JSON when the request has no
// Content-Type).
const (
	MediaTypeJSON = "application/json"
	MediaTypeYAML = "application/yaml"
)

// acceptedMediaTypes are the bodies a create or update accepts, as the 415 lists them.
var acceptedMediaTypes = []string{MediaTypeJSON, MediaTypeYAML}

// Serializers are the JSON and YAML serializers of one API group, each lenient or strict:
// a strict one reports unknown and duplicate fields as a runtime.StrictDecodingError
// returned with the decoded object (apimachinery's json.SerializerOptions.Strict).
type Serializers struct {
	JSON, YAML             runtime.Serializer
	StrictJSON, StrictYAML runtime.Serializer
}

// Decoder decodes the bodies of one resource path in one version, as the decoding part of
// kube-apiserver's handlers.RequestScope.
type Decoder struct {
	Serializers
	// Kind is the versioned kind served on the wire (v1 Widget, or the kind a
	// rest.GroupVersionKindProvider storage names, e.g. autoscaling/v1 Scale): a body must
	// be of it, and is decoded into it when it names no apiVersion or kind.
	Kind schema.GroupVersionKind
	// HubGV is the version storage keeps objects in, which a decoded body is converted to.
	HubGV schema.GroupVersion
	// Defaulter applies defaults to a decoded body, in the wire version.
	Defaulter runtime.ObjectDefaulter
	// UnsafeConvertor converts a decoded body to HubGV; its result may share memory with
	// its input (runtime.UnsafeObjectConvertor), the body being the request's own.
	UnsafeConvertor runtime.ObjectConvertor
}

// Decode decodes a POST or PUT body (JSON or YAML by Content-Type) in the wire version
// (d.Kind's), defaults it and converts it to the storage's version, as kube's create
// handler, and returns it with the warnings of fieldValidation=Warn. directive is the
// effective fieldValidation: unknown or duplicate fields fail the request (Strict), come
// back as warnings (Warn) or are dropped (Ignore). A body that does not decode is 400
// BadRequest in the words of kube's handlers.transformDecodeError: `Database in version "v1"
// cannot be handled as a Database: strict decoding error: unknown field "spec.x"`. The
// body's apiVersion and kind must be the wire kind's (400 otherwise). Kubernetes' protobuf
// encoding is read for the built-in kinds runtime/serializer/protobuf knows. Errors: 400
// BadRequest, 415 UnsupportedMediaType for another Content-Type, and a conversion's own API
// error (a failed conversion webhook's 500).
func (d *Decoder) Decode(req *http.Request, body []byte, directive string) (runtime.Object, []string, error) {
	if IsProtobuf(req) && protobuf.Builtin().Handles(d.Kind.GroupVersion()) {
		// A built-in kind sent by a typed client (kubectl create role): read it as the JSON it
		// stands for. Protobuf has no unknown fields to report.
		data, _, err := protobuf.Builtin().ToJSON(body)
		if err != nil {
			return nil, nil, apierrors.NewBadRequest(err.Error())
		}
		return d.decode(d.JSON, data, metav1.FieldValidationIgnore, d.decodeError(data))
	}
	ser, err := d.inputSerializer(req, directive != metav1.FieldValidationIgnore)
	if err != nil {
		return nil, nil, err
	}
	return d.decode(ser, body, directive, d.decodeError(body))
}

// DecodeWith is Decode with a chosen serializer, for patches (the patched object's JSON): a
// decoding error is 400 BadRequest with the decoder's own message.
func (d *Decoder) DecodeWith(ser runtime.Serializer, body []byte, directive string) (runtime.Object, []string, error) {
	return d.decode(ser, body, directive, func(_ *schema.GroupVersionKind, err error) error { return apierrors.NewBadRequest(err.Error()) })
}

// WithDocument returns ctx carrying the body of a create or update as the request's
// document (request.Document, in the wire kind), which validation reads to tell a key the
// client left out from one it sent with a zero value: the JSON body itself, or a YAML body
// converted to JSON. A protobuf body (a built-in kind from a typed client) and a body that
// cannot be converted carry none: validation then judges presence by what the object's JSON
// encoding writes.
func (d *Decoder) WithDocument(ctx context.Context, req *http.Request, body []byte) context.Context {
	mediaType, _, err := mime.ParseMediaType(req.Header.Get("Content-Type"))
	switch {
	case req.Header.Get("Content-Type") == "" || err == nil && mediaType == MediaTypeJSON:
		return request.WithDocument(ctx, request.NewDocument(d.Kind, body))
	case err == nil && mediaType == MediaTypeYAML:
		if data, err := utilyaml.ToJSON(body); err == nil {
			return request.WithDocument(ctx, request.NewDocument(d.Kind, data))
		}
	}
	return ctx
}

// IsProtobuf reports whether req's body is in Kubernetes' protobuf encoding (its
// Content-Type is application/vnd.kubernetes.protobuf).
func IsProtobuf(req *http.Request) bool {
	mediaType, _, err := mime.ParseMediaType(req.Header.Get("Content-Type"))
	return err == nil && mediaType == protobuf.ContentType
}

// ProtobufToJSON returns the JSON a protobuf body of a built-in kind stands for (a
// DeleteOptions of client-go's typed clients included), with its apiVersion and kind.
// Errors: body is not a protobuf body of a kind runtime/serializer/protobuf knows.
func ProtobufToJSON(body []byte) ([]byte, error) {
	data, _, err := protobuf.Builtin().ToJSON(body)
	return data, err
}

// NewUnsupportedMediaType is the 415 a body in an unknown format gets, as kube's
// negotiation.NewUnsupportedMediaTypeError: mediaType is the request's, accepted the media
// types the request could have sent.
func NewUnsupportedMediaType(mediaType string, accepted []string) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure,
		Code:   http.StatusUnsupportedMediaType,
		Reason: metav1.StatusReasonUnsupportedMediaType,
		Message: fmt.Sprintf("the body of the request was in an unknown format (%s) - accepted media types include: %s",
			mediaType, strings.Join(accepted, ", ")),
	}}
}

// inputSerializer returns the serializer for req's Content-Type (JSON when absent): strict
// ones report unknown and duplicate fields. Errors: 415 UnsupportedMediaType.
func (d *Decoder) inputSerializer(req *http.Request, strict bool) (runtime.Serializer, error) {
	contentType := req.Header.Get("Content-Type")
	if contentType == "" {
		contentType = MediaTypeJSON
	}
	mediaType, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return nil, NewUnsupportedMediaType(contentType, acceptedMediaTypes)
	}
	switch {
	case mediaType == MediaTypeJSON && strict:
		return d.StrictJSON, nil
	case mediaType == MediaTypeJSON:
		return d.JSON, nil
	case mediaType == MediaTypeYAML && strict:
		return d.StrictYAML, nil
	case mediaType == MediaTypeYAML:
		return d.YAML, nil
	}
	return nil, NewUnsupportedMediaType(mediaType, acceptedMediaTypes)
}
