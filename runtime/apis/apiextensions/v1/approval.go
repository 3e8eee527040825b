package v1

import (
	"fmt"
	"net/url"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// KubeAPIApprovedAnnotation is the annotation a CRD of a protected group (k8s.io,
// kubernetes.io and their subdomains) must carry: the URL of the API's approval, or a reason
// starting with "unapproved", as upstream's.
const KubeAPIApprovedAnnotation = "api-approved.kubernetes.io"

// approvalState is the state of a CRD's KubeAPIApprovedAnnotation.
type approvalState int

const (
	approvalInvalid  approvalState = iota // neither a URL nor "unapproved..."
	approved                              // a URL
	approvalBypassed                      // "unapproved..."
	approvalMissing                       // no annotation
)

// isProtectedGroup reports whether group is k8s.io, kubernetes.io or a subdomain of either.
func isProtectedGroup(group string) bool {
	return group == "k8s.io" || strings.HasSuffix(group, ".k8s.io") ||
		group == "kubernetes.io" || strings.HasSuffix(group, ".kubernetes.io")
}

// apiApprovalState returns the state of annotations' approval and kube's reason for it.
func apiApprovalState(annotations map[string]string) (approvalState, string) {
	a := annotations[KubeAPIApprovedAnnotation]
	u, err := url.ParseRequestURI(a)
	switch {
	case a == "":
		return approvalMissing, fmt.Sprintf("protected groups must have approval annotation %q, see https://github.com/kubernetes/enhancements/pull/1111", KubeAPIApprovedAnnotation)
	case strings.HasPrefix(a, "unapproved"):
		return approvalBypassed, fmt.Sprintf("not approved: %q", a)
	case err == nil && u.Host != "" && u.Scheme != "":
		return approved, fmt.Sprintf("approved in %v", a)
	default:
		return approvalInvalid, fmt.Sprintf("protected groups must have approval annotation %q with either a URL or a reason starting with \"unapproved\", see https://github.com/kubernetes/enhancements/pull/1111", KubeAPIApprovedAnnotation)
	}
}

// validateAPIApproval requires the approval annotation on CRDs of protected groups, as
// upstream's validateAPIApproval; an update that leaves the approval state as it was (old not
// nil) always passes.
func validateAPIApproval(crd, old *CustomResourceDefinition) field.ErrorList {
	if !isProtectedGroup(crd.Spec.Group) {
		return nil
	}
	state, reason := apiApprovalState(crd.Annotations)
	if old != nil {
		if oldState, _ := apiApprovalState(old.Annotations); oldState == state {
			return nil
		}
	}
	fld := field.NewPath("metadata", "annotations").Key(KubeAPIApprovedAnnotation)
	switch state {
	case approved, approvalBypassed:
		return nil
	case approvalMissing:
		return field.ErrorList{field.Required(fld, reason)}
	default:
		return field.ErrorList{field.Invalid(fld, crd.Annotations[KubeAPIApprovedAnnotation], reason)}
	}
}
