package server

import (
	restful "github.com/emicklei/go-restful/v3"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/apigen-dev/apigen/runtime/discovery"
)

// writeStatus writes status as a metav1.Status JSON body (kind "Status", apiVersion "v1")
// with its Code as the HTTP status code, as kube-apiserver's responsewriters.ErrorNegotiated.
func writeStatus(w http.ResponseWriter, status metav1.Status) {
	status.TypeMeta = metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}
	status.Status = metav1.StatusFailure
	code := int(status.Code)
	if code == 0 {
		code = http.StatusInternalServerError
		status.Code = int32(code)
	}
	discovery.WriteJSON(w, code, &status)
}

// notFoundStatus is kube-apiserver's answer to a path nothing serves.
func notFoundStatus() metav1.Status {
	return apierrors.NewGenericServerResponse(http.StatusNotFound, "", schemaGroupResource, "", "", 0, false).ErrStatus
}

// serviceErrorStatus turns go-restful's routing errors (404 no route, 405 method not allowed,
// 406 not acceptable, 415 unsupported media type) into the Status kube-apiserver answers with.
func serviceErrorStatus(serr restful.ServiceError) metav1.Status {
	if serr.Code == http.StatusNotFound {
		return notFoundStatus()
	}
	return apierrors.NewGenericServerResponse(serr.Code, "", schemaGroupResource, "", serr.Message, 0, false).ErrStatus
}
