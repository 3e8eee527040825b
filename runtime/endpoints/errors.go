package endpoints

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	restful "github.com/emicklei/go-restful/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// statusFor returns the metav1.Status a client sees for err: the status of an apierrors
// error (anything implementing apierrors.APIStatus, also when wrapped), otherwise a 500
// InternalError, as kube's responsewriters.ErrorToAPIStatus.
func statusFor(err error) *metav1.Status {
	var apiStatus apierrors.APIStatus
	if errors.As(err, &apiStatus) {
		status := apiStatus.Status()
		if status.Status == "" {
			status.Status = metav1.StatusFailure
		}
		if status.Code == 0 {
			status.Code = http.StatusInternalServerError
		}
		status.Kind, status.APIVersion = "Status", "v1"
		return &status
	}
	status := apierrors.NewInternalError(err).Status()
	status.Kind, status.APIVersion = "Status", "v1"
	return &status
}

// writeError writes err as a JSON metav1.Status with the status's code.
func writeError(w http.ResponseWriter, err error) {
	writeStatus(w, statusFor(err))
}

// writeStatus writes status as JSON with its code as the HTTP status.
func writeStatus(w http.ResponseWriter, status *metav1.Status) {
	data, err := json.Marshal(status)
	if err != nil {
		http.Error(w, "cannot encode the error status", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	code := int(status.Code)
	if code == 0 {
		code = http.StatusOK
	}
	w.WriteHeader(code)
	_, _ = w.Write(append(data, '\n'))
}

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

// ServiceErrorHandler writes go-restful's own routing errors (404 no route, 405, 406, 415)
// as metav1.Status JSON, as kube-apiserver's APIServerHandler does. Install it with
// container.ServiceErrorHandler(endpoints.ServiceErrorHandler).
func ServiceErrorHandler(serviceErr restful.ServiceError, _ *restful.Request, resp *restful.Response) {
	reason := metav1.StatusReasonUnknown
	switch serviceErr.Code {
	case http.StatusNotFound:
		reason = metav1.StatusReasonNotFound
	case http.StatusMethodNotAllowed:
		reason = metav1.StatusReasonMethodNotAllowed
	case http.StatusNotAcceptable:
		reason = metav1.StatusReasonNotAcceptable
	case http.StatusUnsupportedMediaType:
		reason = metav1.StatusReasonUnsupportedMediaType
	}
	writeStatus(resp, &metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure, Code: int32(serviceErr.Code), Reason: reason, Message: serviceErr.Message,
	})
}
