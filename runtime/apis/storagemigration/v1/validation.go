package v1

import (
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidateStorageVersionMigration is the hand-written validation of a
// StorageVersionMigration, as Kubernetes' storagemigration validation: the generated strategy
// calls it on create (and, through ValidateStorageVersionMigrationUpdate, on updates and
// status updates) after the checks generated from the markers. Errors, each a field error of
// the 422 Invalid status: spec.resource.resource empty or not a DNS-1123 label;
// spec.resource.group not a DNS-1123 subdomain (the core group is ""); status conditions
// other than Running, Succeeded and Failed, or Succeeded and Failed both True, or Running
// True together with either.
func ValidateStorageVersionMigration(obj *StorageVersionMigration) field.ErrorList {
	var errs field.ErrorList
	res := field.NewPath("spec", "resource")
	if obj.Spec.Resource.Resource == "" {
		errs = append(errs, field.Required(res.Child("resource"), "resource is required"))
	} else {
		for _, msg := range utilvalidation.IsDNS1123Label(obj.Spec.Resource.Resource) {
			errs = append(errs, field.Invalid(res.Child("resource"), obj.Spec.Resource.Resource, msg))
		}
	}
	if obj.Spec.Resource.Group != "" {
		for _, msg := range utilvalidation.IsDNS1123Subdomain(obj.Spec.Resource.Group) {
			errs = append(errs, field.Invalid(res.Child("group"), obj.Spec.Resource.Group, msg))
		}
	}
	return append(errs, validateConditions(obj.Status.Conditions)...)
}

// ValidateStorageVersionMigrationUpdate is ValidateStorageVersionMigration of obj, and
// spec.resource unchanged from old ("field is immutable"), as Kubernetes'.
func ValidateStorageVersionMigrationUpdate(obj, old *StorageVersionMigration) field.ErrorList {
	errs := ValidateStorageVersionMigration(obj)
	if !apiequality.Semantic.DeepEqual(obj.Spec.Resource, old.Spec.Resource) {
		errs = append(errs, field.Invalid(field.NewPath("spec", "resource"), obj.Spec.Resource, "field is immutable"))
	}
	return errs
}

// validateConditions checks the condition types and that the final ones exclude each other
// and Running.
func validateConditions(conds []metav1.Condition) field.ErrorList {
	var errs field.ErrorList
	path := field.NewPath("status", "conditions")
	isTrue := map[MigrationConditionType]bool{}
	for i, c := range conds {
		switch t := MigrationConditionType(c.Type); t {
		case MigrationRunning, MigrationSucceeded, MigrationFailed:
			isTrue[t] = isTrue[t] || c.Status == metav1.ConditionTrue
		default:
			errs = append(errs, field.NotSupported(path.Index(i).Child("type"), c.Type,
				[]string{string(MigrationRunning), string(MigrationSucceeded), string(MigrationFailed)}))
		}
	}
	switch {
	case isTrue[MigrationSucceeded] && isTrue[MigrationFailed]:
		errs = append(errs, field.Invalid(path, conds, "Both success and failed conditions cannot be true at the same time"))
	case isTrue[MigrationRunning] && (isTrue[MigrationSucceeded] || isTrue[MigrationFailed]):
		errs = append(errs, field.Invalid(path, conds, "Running condition cannot be true when a final (Succeeded or Failed) condition is true"))
	}
	return errs
}
