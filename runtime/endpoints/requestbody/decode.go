package requestbody

import (
	"encoding/hex"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// decode decodes body in the body's version, checks it is the wire version, defaults it,
// then converts it to the storage's version without a copy; decodeErr makes the error of a
// body that does not decode.
func (d *Decoder) decode(ser runtime.Serializer, body []byte, directive string, decodeErr func(*schema.GroupVersionKind, error) error) (runtime.Object, []string, error) {
	defaultGVK := d.Kind
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
	if gvk == nil || gvk.GroupVersion() != d.Kind.GroupVersion() {
		return nil, nil, apierrors.NewBadRequest(fmt.Sprintf(
			"the API version in the data (%s) does not match the expected API version (%s)", gvkVersion(gvk), d.Kind.GroupVersion()))
	}
	if gvk.Kind != d.Kind.Kind {
		return nil, nil, apierrors.NewBadRequest(fmt.Sprintf(
			"the kind in the data (%s) does not match the expected kind (%s)", gvk.Kind, d.Kind.Kind))
	}
	d.Defaulter.Default(obj)
	if d.HubGV == d.Kind.GroupVersion() {
		return obj, warnings, nil
	}
	// obj is this request's own, so the conversion may share its memory (as the versioning
	// codec kube-apiserver decodes bodies with converts with runtime.UnsafeObjectConvertor).
	hub, err := d.UnsafeConvertor.ConvertToVersion(obj, d.HubGV)
	if _, isStatus := err.(apierrors.APIStatus); isStatus {
		return nil, nil, err // a convertor's own Status (a failed conversion webhook's 500)
	}
	if err != nil {
		return nil, nil, apierrors.NewBadRequest(fmt.Sprintf("cannot convert %s to %s: %v", d.Kind, d.HubGV, err))
	}
	return hub, warnings, nil
}

// decodeError returns the error of a body that did not decode, as kube's
// handlers.transformDecodeError: 400 BadRequest naming the kind the body gave, or, when it
// gave none, the kind expected and the start of the body.
func (d *Decoder) decodeError(body []byte) func(*schema.GroupVersionKind, error) error {
	return func(gvk *schema.GroupVersionKind, err error) error {
		if gvk != nil && gvk.Kind != "" {
			return apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", gvk.Kind, gvk.Version, d.Kind.Kind, err))
		}
		return apierrors.NewBadRequest(fmt.Sprintf("the object provided is unrecognized (must be of type %s): %v (%s)", d.Kind.Kind, err, summarizeData(body, 30)))
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

// gvkVersion is gvk's group version, "" for none.
func gvkVersion(gvk *schema.GroupVersionKind) string {
	if gvk == nil {
		return ""
	}
	return gvk.GroupVersion().String()
}
