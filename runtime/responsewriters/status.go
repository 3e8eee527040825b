package responsewriters

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"

	restful "github.com/emicklei/go-restful/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// WriteJSON writes obj as JSON with status code and Content-Type application/json. An
// encoding error (impossible for the metav1 types) is answered with a plain 500.
func WriteJSON(w http.ResponseWriter, code int, obj any) {
	data, err := json.Marshal(obj)
	if err != nil {
		http.Error(w, "cannot encode response: "+err.Error(), http.StatusInternalServerError)
		return
	}
	WriteBody(w, code, "application/json", append(data, '\n'))
}

// WriteBody writes data, an encoded response body of contentType, with status code and
// X-Content-Type-Options: nosniff and its Content-Length (so an HTTP/1.1 body is not sent in
// chunks), as kube-apiserver's responsewriters write every body.
func WriteBody(w http.ResponseWriter, code int, contentType string, data []byte) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("X-Content-Type-Options", "nosniff")
	if len(data) > 0 {
		h.Set("Content-Length", strconv.Itoa(len(data)))
	}
	w.WriteHeader(code)
	_, _ = w.Write(data)
}

// ErrorStatus returns the metav1.Status a client sees for err: the status of an apierrors
// error (anything implementing apierrors.APIStatus, also when wrapped), otherwise a 500
// InternalError, as kube's responsewriters.ErrorToAPIStatus; complete as WriteStatus sends it.
func ErrorStatus(err error) *metav1.Status {
	var status metav1.Status
	var apiStatus apierrors.APIStatus
	if errors.As(err, &apiStatus) {
		status = apiStatus.Status()
	} else {
		status = apierrors.NewInternalError(err).Status()
	}
	return complete(status)
}

// complete returns a copy of status with kind "Status", apiVersion "v1", status "Failure"
// when unset and code 500 when unset.
func complete(status metav1.Status) *metav1.Status {
	status.TypeMeta = metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}
	if status.Status == "" {
		status.Status = metav1.StatusFailure
	}
	if status.Code == 0 {
		status.Code = http.StatusInternalServerError
	}
	return &status
}

// WriteError writes err as a metav1.Status (see ErrorStatus).
func WriteError(w http.ResponseWriter, err error) {
	WriteStatus(w, ErrorStatus(err))
}

// WriteStatus writes status as JSON with its code as the HTTP status. It fills in kind
// "Status" and apiVersion "v1", status "Failure" when unset, and code 500 when unset. A
// status with details.retryAfterSeconds also gets the Retry-After header, as
// kube-apiserver's responsewriters.ErrorNegotiated.
func WriteStatus(w http.ResponseWriter, status *metav1.Status) {
	s := complete(*status)
	if s.Details != nil && s.Details.RetryAfterSeconds > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(s.Details.RetryAfterSeconds)))
	}
	WriteJSON(w, int(s.Code), s)
}

// NotFound is kube-apiserver's answer to a path nothing serves: 404, reason NotFound,
// "the server could not find the requested resource".
func NotFound() *metav1.Status {
	return &apierrors.NewGenericServerResponse(http.StatusNotFound, "", schema.GroupResource{}, "", "", 0, false).ErrStatus
}

// ServiceErrorHandler writes go-restful's own routing errors (404 no route, 405 method not
// allowed, 406 not acceptable, 415 unsupported media type) as the Status kube-apiserver
// answers with. Install it with container.ServiceErrorHandler(ServiceErrorHandler).
func ServiceErrorHandler(serr restful.ServiceError, _ *restful.Request, resp *restful.Response) {
	if serr.Code == http.StatusNotFound {
		WriteStatus(resp.ResponseWriter, NotFound())
		return
	}
	WriteStatus(resp.ResponseWriter, &apierrors.NewGenericServerResponse(serr.Code, "", schema.GroupResource{}, "", serr.Message, 0, false).ErrStatus)
}
