package endpoints

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// conversionError is an object's failed conversion from one version of its kind to another
// (a ConvertTo or ConvertFrom of the user's, or a hand-written Convert_ function, returned an
// error), answered as kube-apiserver answers a custom resource whose conversion webhook fails
// (apiextensions-apiserver's webhookConverter.Convert, then responsewriters.ErrorToAPIStatus
// of an error that is no Status): 500, no reason, "conversion webhook for <group/version,
// Kind=...> failed: <err>" naming the version converted from; the details name the object.
type conversionError struct {
	// from is the kind and version of the object converted; name its name ("" for a list).
	from schema.GroupVersionKind
	name string
	err  error
	// verbatim is set when err already has kube's wording (a conversion webhook's own error,
	// as runtime/apiextensions reports it): Error is then err's message as it is.
	verbatim bool
}

// Error is kube's wording: "conversion webhook for db.example.com/v2, Kind=Database failed: ...".
func (e *conversionError) Error() string {
	if e.verbatim {
		return e.err.Error()
	}
	return fmt.Sprintf("conversion webhook for %v failed: %v", e.from, e.err)
}

// Unwrap returns the conversion's own error.
func (e *conversionError) Unwrap() error { return e.err }

// Status implements apierrors.APIStatus: 500 with the error as the message.
func (e *conversionError) Status() metav1.Status {
	s := metav1.Status{Status: metav1.StatusFailure, Code: http.StatusInternalServerError, Message: e.Error()}
	if e.name != "" {
		s.Details = &metav1.StatusDetails{Name: e.name, Group: e.from.Group, Kind: e.from.Kind}
	}
	return s
}

// failedConversions is a runtime.ObjectConvertor whose failures are conversionErrors (a
// Status, which the handlers answer as it is), so that every handler converting an object
// (decoding a body to the hub version, encoding a stored object, a list or a watch event in
// the request's version) answers a failed conversion as kube-apiserver answers a failing
// conversion webhook.
type failedConversions struct {
	runtime.ObjectConvertor
	typer runtime.ObjectTyper
}

// ConvertToVersion converts in as the wrapped convertor does; its error is a conversionError.
func (c failedConversions) ConvertToVersion(in runtime.Object, gv runtime.GroupVersioner) (runtime.Object, error) {
	out, err := c.ObjectConvertor.ConvertToVersion(in, gv)
	if err != nil {
		return nil, c.failed(in, err)
	}
	return out, nil
}

// Convert converts in into out as the wrapped convertor does; its error is a conversionError.
func (c failedConversions) Convert(in, out, context any) error {
	if err := c.ObjectConvertor.Convert(in, out, context); err != nil {
		obj, _ := in.(runtime.Object)
		return c.failed(obj, err)
	}
	return nil
}

// failed returns err as a conversionError of in, unless it already is a Status (a
// conversionError, or runtime/apiextensions' failed conversion webhook); an error that already
// has kube's wording keeps its message.
func (c failedConversions) failed(in runtime.Object, err error) error {
	var status apierrors.APIStatus
	if errors.As(err, &status) || in == nil {
		return err // a conversionError, or a convertor's own Status (a failed conversion webhook's 500)
	}
	ce := &conversionError{from: in.GetObjectKind().GroupVersionKind(), err: err,
		verbatim: strings.HasPrefix(err.Error(), "conversion webhook for ")}
	if ce.from.Empty() && c.typer != nil {
		if kinds, _, kerr := c.typer.ObjectKinds(in); kerr == nil && len(kinds) > 0 {
			ce.from = kinds[0]
		}
	}
	if !meta.IsListType(in) {
		if m, merr := meta.Accessor(in); merr == nil {
			ce.name = m.GetName()
		}
	}
	return ce
}
