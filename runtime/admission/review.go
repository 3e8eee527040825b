package admission

import (
	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// NewAdmissionRequest describes a as the AdmissionRequest a webhook receives and a policy's
// request variable is, as kube's CreateV1AdmissionReview: kind and resource are those the
// webhook or policy matched (resource, kind: a's own or an equivalent one), requestKind and
// requestResource a's own. A request for a Namespace carries the namespace's name as its
// namespace, as kube-apiserver's attributes do. Object and OldObject are left empty for
// the caller (they must be in kind's version). Options are the operation's options as far as
// the server knows them: the dry run (CreateOptions, UpdateOptions or DeleteOptions with
// dryRun [All]); fieldManager and propagationPolicy are not passed to admission.
func NewAdmissionRequest(a *Attributes, uid types.UID, resource schema.GroupVersionResource, kind schema.GroupVersionKind) *admissionv1.AdmissionRequest {
	dryRun := a.DryRun
	req := &admissionv1.AdmissionRequest{
		UID:                uid,
		Kind:               metav1.GroupVersionKind(kind),
		Resource:           metav1.GroupVersionResource(resource),
		SubResource:        a.Subresource,
		RequestKind:        (*metav1.GroupVersionKind)(&a.Kind),
		RequestResource:    (*metav1.GroupVersionResource)(&a.Resource),
		RequestSubResource: a.Subresource,
		Name:               a.Name,
		Namespace:          a.Namespace,
		Operation:          admissionv1.Operation(a.Operation),
		UserInfo:           userInfo(a),
		DryRun:             &dryRun,
		Options:            runtime.RawExtension{Object: options(a)},
	}
	if a.Resource.Group == "" && a.Resource.Resource == "namespaces" {
		req.Namespace = a.Name
	}
	return req
}

func userInfo(a *Attributes) authenticationv1.UserInfo {
	if a.User == nil {
		return authenticationv1.UserInfo{}
	}
	info := authenticationv1.UserInfo{Username: a.User.Name, UID: a.User.UID, Groups: a.User.Groups}
	if len(a.User.Extra) > 0 {
		info.Extra = map[string]authenticationv1.ExtraValue{}
		for k, v := range a.User.Extra {
			info.Extra[k] = v
		}
	}
	return info
}

// options returns the options object of a's operation (with its kind set), or nil.
func options(a *Attributes) runtime.Object {
	var dryRun []string
	if a.DryRun {
		dryRun = []string{metav1.DryRunAll}
	}
	gv := metav1.SchemeGroupVersion
	switch a.Operation {
	case Create:
		return &metav1.CreateOptions{TypeMeta: metav1.TypeMeta{APIVersion: gv.String(), Kind: "CreateOptions"}, DryRun: dryRun}
	case Update:
		return &metav1.UpdateOptions{TypeMeta: metav1.TypeMeta{APIVersion: gv.String(), Kind: "UpdateOptions"}, DryRun: dryRun}
	case Delete:
		return &metav1.DeleteOptions{TypeMeta: metav1.TypeMeta{APIVersion: gv.String(), Kind: "DeleteOptions"}, DryRun: dryRun}
	}
	return nil
}
