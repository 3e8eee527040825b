package endpoints

import (
	"fmt"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// newUnsupportedMediaType is the 415 a body in an unknown format gets, as kube's
// negotiation.NewUnsupportedMediaTypeError.
func newUnsupportedMediaType(mediaType string, accepted []string) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure,
		Code:   http.StatusUnsupportedMediaType,
		Reason: metav1.StatusReasonUnsupportedMediaType,
		Message: fmt.Sprintf("the body of the request was in an unknown format (%s) - accepted media types include: %s",
			mediaType, strings.Join(accepted, ", ")),
	}}
}

// newNotAcceptable is the 406 a request gets when no Accept clause can be served.
func newNotAcceptable(accepted []string) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusNotAcceptable,
		Reason:  metav1.StatusReasonNotAcceptable,
		Message: "only the following media types are accepted: " + strings.Join(accepted, ", "),
	}}
}
