package cel

import (
	"encoding/json"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apiserver/pkg/cel/library"

	"github.com/apigen-dev/apigen/runtime/admission"
)

// RequestValue returns req as the request variable: its JSON without uid, object and
// oldObject (those are variables of their own), as kube's CreateAdmissionRequest.
func RequestValue(req *admissionv1.AdmissionRequest) (map[string]any, error) {
	data, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	if err := utiljson.Unmarshal(data, &out); err != nil {
		return nil, err
	}
	delete(out, "uid")
	delete(out, "object")
	delete(out, "oldObject")
	return out, nil
}

// Resource returns the resource of a for authorizer.requestResource: its requested group,
// resource, subresource, namespace and name.
func Resource(a *admission.Attributes) library.Resource { return resource{a} }

type resource struct{ a *admission.Attributes }

func (r resource) GetName() string                          { return r.a.Name }
func (r resource) GetNamespace() string                     { return r.a.Namespace }
func (r resource) GetResource() schema.GroupVersionResource { return r.a.Resource }
func (r resource) GetSubresource() string                   { return r.a.Subresource }
