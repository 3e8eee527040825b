package endpoints

import (
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
)

// checkName checks the name and namespace a PUT body carries against the URL's, as
// kube-apiserver's update handler (handlers.checkName): the name must be given and be the
// URL's, and a namespace, when given on a namespaced URL, must be the URL's. Errors: 400
// BadRequest with kube's messages.
func checkName(obj runtime.Object, name, namespace string) error {
	m, err := meta.Accessor(obj)
	if err != nil {
		return apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s based on URL) was undeterminable: %v", name, err))
	}
	switch objName := m.GetName(); objName {
	case "":
		return apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s based on URL) was undeterminable: name must be provided", name))
	case name:
	default:
		return apierrors.NewBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", objName, name))
	}
	if objNamespace := m.GetNamespace(); namespace != "" && objNamespace != "" && objNamespace != namespace {
		return apierrors.NewBadRequest(fmt.Sprintf(
			"the namespace of the object (%s) does not match the namespace on the request (%s)", objNamespace, namespace))
	}
	return nil
}

// ensureNamespace checks the namespace of a patched object, as kube-apiserver's patch handler
// (rest.EnsureObjectNamespaceMatchesRequestNamespace): it must be the URL's (or empty, which
// becomes the URL's) for a namespaced resource, and is cleared for a cluster-scoped one.
// Errors: 400 BadRequest with kube's message.
func ensureNamespace(s *scope, requestNamespace string, obj runtime.Object) error {
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil // no metadata to check; storage refuses the object
	}
	if !s.namespaced {
		requestNamespace = ""
	}
	switch objNamespace := m.GetNamespace(); {
	case objNamespace == requestNamespace:
	case objNamespace == "", requestNamespace == "":
		m.SetNamespace(requestNamespace)
	default:
		return apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	return nil
}
