package v1

import (
	"fmt"
	"strings"

	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidateAPIService is the hand-written validation of an APIService, as kube-aggregator's
// validation.ValidateAPIService; the generated strategy calls it on create and update (and
// on status updates), after the checks generated from the markers. Errors, each a field
// error of the 422 Invalid status: metadata.name other than "<spec.version>.<spec.group>";
// spec.group empty (unless spec.version is "v1", kube's legacy core) or not a DNS-1123
// subdomain; spec.version not a DNS-1035 label; spec.groupPriorityMinimum outside 1-20000;
// spec.versionPriority outside 1-1000; for a Local APIService (no spec.service) a caBundle or
// insecureSkipTLSVerify; for a proxied one an empty service namespace or name, an invalid
// port, or insecureSkipTLSVerify together with a caBundle.
func ValidateAPIService(obj *APIService) field.ErrorList {
	var errs field.ErrorList
	spec, specPath := obj.Spec, field.NewPath("spec")
	if want := spec.Version + "." + spec.Group; obj.Name != want {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), obj.Name,
			fmt.Sprintf("must be `spec.version+\".\"+spec.group`: %q", want)))
	}
	if spec.Group == "" && spec.Version != "v1" {
		errs = append(errs, field.Required(specPath.Child("group"), "only v1 may have an empty group and it better be legacy kube"))
	}
	if spec.Group != "" {
		for _, msg := range utilvalidation.IsDNS1123Subdomain(spec.Group) {
			errs = append(errs, field.Invalid(specPath.Child("group"), spec.Group, msg))
		}
	}
	for _, msg := range utilvalidation.IsDNS1035Label(spec.Version) {
		errs = append(errs, field.Invalid(specPath.Child("version"), spec.Version, msg))
	}
	if spec.GroupPriorityMinimum <= 0 || spec.GroupPriorityMinimum > 20000 {
		errs = append(errs, field.Invalid(specPath.Child("groupPriorityMinimum"), spec.GroupPriorityMinimum, "must be positive and less than 20000"))
	}
	if spec.VersionPriority <= 0 || spec.VersionPriority > 1000 {
		errs = append(errs, field.Invalid(specPath.Child("versionPriority"), spec.VersionPriority, "must be positive and less than 1000"))
	}
	if spec.Service == nil {
		if len(spec.CABundle) != 0 {
			errs = append(errs, field.Invalid(specPath.Child("caBundle"), fmt.Sprintf("%d bytes", len(spec.CABundle)), "local APIServices may not have a caBundle"))
		}
		if spec.InsecureSkipTLSVerify {
			errs = append(errs, field.Invalid(specPath.Child("insecureSkipTLSVerify"), spec.InsecureSkipTLSVerify, "local APIServices may not have insecureSkipTLSVerify"))
		}
		return errs
	}
	svcPath := specPath.Child("service")
	if spec.Service.Namespace == "" {
		errs = append(errs, field.Required(svcPath.Child("namespace"), ""))
	}
	if spec.Service.Name == "" {
		errs = append(errs, field.Required(svcPath.Child("name"), ""))
	}
	if p := spec.Service.Port; p != nil {
		if msgs := utilvalidation.IsValidPortNum(int(*p)); msgs != nil {
			errs = append(errs, field.Invalid(svcPath.Child("port"), *p, "port is not valid: "+strings.Join(msgs, ", ")))
		}
	}
	if spec.InsecureSkipTLSVerify && len(spec.CABundle) > 0 {
		errs = append(errs, field.Invalid(specPath.Child("insecureSkipTLSVerify"), spec.InsecureSkipTLSVerify, "may not be true if caBundle is present"))
	}
	return errs
}
