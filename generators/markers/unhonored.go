package markers

import "strings"

// unhonored are the markers apigen accepts (they are Kubernetes' or controller-tools') but
// cannot make do what they do there, with why: each is a warning at its file:line naming
// the marker, never silently ignored. Marker families (open-ended names) are listed by prefix.
var unhonored = map[string]string{
	"patchStrategy":            "apigen publishes no x-kubernetes-patch-strategy; strategic merge patch follows the field's patchStrategy struct tag",
	"patchMergeKey":            "apigen publishes no x-kubernetes-patch-merge-key; strategic merge patch follows the field's patchMergeKey struct tag",
	"union":                    "the old union marker is not enforced; use +k8s:unionMember and +k8s:unionDiscriminator",
	"kubebuilder:skip":         "apigen generates the package's code anyway",
	"kubebuilder:title":        "apigen does not write schema titles",
	"kubebuilder:example":      "apigen does not write schema examples",
	"kubebuilder:externalDocs": "apigen writes no externalDocs into the OpenAPI schema or the CRD",
	"kubebuilder:pruning:PreserveUnknownFields":     "a typed server decodes into Go structs, which keep no unknown fields",
	"kubebuilder:validation:XPreserveUnknownFields": "a typed server decodes into Go structs, which keep no unknown fields",
	"kubebuilder:validation:Type":                   "apigen's schema follows the Go type",
	"kubebuilder:validation:XIntOrString":           "apigen's schema follows the Go type (use intstr.IntOrString)",
	"kubebuilder:validation:EmbeddedResource":       "apigen's schema follows the Go type",
	"kubebuilder:validation:XEmbeddedResource":      "apigen's schema follows the Go type",
	"kubebuilder:validation:Schemaless":             "apigen's schema follows the Go type",
	"k8s:deepcopy-gen:nonpointer-interfaces":        "apigen generates DeepCopyObject on pointer receivers only",
	"k8s:conversion-gen-external-types":             "apigen converts the version package's own types",
	"k8s:defaulter-gen-input":                       "apigen defaults the package's own types",
	"k8s:openapi-model-package":                     "apigen names OpenAPI definitions by Go package",
	"k8s:subresource":                               "validation-gen's subresource scoping is not generated",
	"k8s:supportsSubresource":                       "validation-gen's subresource scoping is not generated",
	"k8s:isSubresource":                             "validation-gen's subresource scoping is not generated",
	"k8s:opaqueType":                                "apigen validates the type's own markers wherever it is used",
	"k8s:item":                                      "list-item scoped validation is not generated",
	"k8s:validateFalse":                             "validation-gen's test tags are not generated",
	"k8s:validateTrue":                              "validation-gen's test tags are not generated",
	"k8s:declarativeValidationNative":               "apigen's validation is always generated from the markers",
	"k8s:customUnique":                              "apigen still checks the list's uniqueness",
	"k8s:alpha":                                     "alpha declarative validation is not enforced by default in Kubernetes (its errors are shadowed); apigen does not enforce it",
	// families
	"kubebuilder:rbac":             "controller-gen writes RBAC rules from it; apigen writes none",
	"kubebuilder:webhook":          "controller-gen writes webhook configurations from it; apigen writes none",
	"kubebuilder:ac:":              "controller-gen's apply configuration options are not read; apigen generates apply configurations for +genclient kinds",
	"k8s:validation:cel":           "kube-openapi's CEL tags are not generated; write +kubebuilder:validation:XValidation",
	"k8s:prerelease-lifecycle-gen": "apigen generates no APILifecycle methods; mark a deprecated version with +kubebuilder:deprecatedversion",
	"k8s:protobuf":                 "apigen serves no protobuf encoding of the API types",
}

// warnf records a warning at the current marker.
func (s *state) warnf(format string, args ...any) {
	s.errorf(format, args...)
	s.diags[len(s.diags)-1].Warning = true
}

// warnUnhonored warns about marker name when apigen cannot honour it, and reports whether it
// did.
func (s *state) warnUnhonored(name, body string) bool {
	reason, ok := unhonored[name]
	if !ok {
		return false
	}
	s.warnf("+%s does nothing in apigen: %s", strings.TrimSpace(body), reason)
	return true
}

// unlessFalse returns the applyFunc of a code-generator switch that apigen always acts as
// if on (+k8s:deepcopy-gen=package, +k8s:openapi-gen=true, +kubebuilder:object:generate=true):
// turning it off is a warning, since apigen generates the code anyway.
func unlessFalse(what string) applyFunc {
	return func(s *state, raw string) error {
		if v, _ := unquote(raw); v == "false" {
			s.warnf("+%s does nothing in apigen: it generates %s for every type anyway", strings.TrimSpace(strings.TrimSpace(s.line.Text)[1:]), what)
		}
		return nil
	}
}
