// Package validation holds the hand-written validation of the shop.example.com group's
// internal types, laid out as Kubernetes' pkg/apis/<group>/validation packages are: the
// strategies apigen generates call ValidateStore, ValidateStoreUpdate and ValidateRegion (with the request's context) after
// the validation generated from the versions' markers.
package validation

import (
	"context"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apigen-dev/apigen/generators/testdata/corpus/codegen/apis/shop"
)

// ValidateStore validates a Store: its shelves' names are DNS-1123 labels. (The versions'
// markers already keep them unique and require a manager's name.)
func ValidateStore(store *shop.Store) field.ErrorList {
	return ValidateStoreSpec(&store.Spec, field.NewPath("spec"))
}

// ValidateStoreSpec validates the spec of a Store at fldPath.
func ValidateStoreSpec(spec *shop.StoreSpec, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, shelf := range spec.Shelves {
		for _, msg := range utilvalidation.IsDNS1123Label(shelf.Name) {
			errs = append(errs, field.Invalid(fldPath.Child("shelves").Index(i).Child("name"), shelf.Name, msg))
		}
	}
	return errs
}

// ValidateStoreUpdate validates an update of a Store: the new object is valid and its tier
// is unchanged.
func ValidateStoreUpdate(newStore, oldStore *shop.Store) field.ErrorList {
	errs := ValidateStore(newStore)
	return append(errs, apivalidation.ValidateImmutableField(newStore.Spec.Tier, oldStore.Spec.Tier, field.NewPath("spec", "tier"))...)
}

// ValidateRegion validates a Region: its zones are DNS-1123 labels. It takes the request's
// context, as apiextensions-apiserver's ValidateCustomResourceDefinition does.
func ValidateRegion(ctx context.Context, region *shop.Region) field.ErrorList {
	var errs field.ErrorList
	for i, zone := range region.Spec.Zones {
		for _, msg := range utilvalidation.IsDNS1123Label(zone) {
			errs = append(errs, field.Invalid(field.NewPath("spec", "zones").Index(i), zone, msg))
		}
	}
	return errs
}
