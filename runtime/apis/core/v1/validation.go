package v1

import (
	"maps"
	"reflect"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// MaxConfigMapSize is the most bytes the values of a ConfigMap's data and binaryData may
// hold together, as Kubernetes' core.MaxSecretSize (1 MiB).
const MaxConfigMapSize = 1 * 1024 * 1024

// ValidateConfigMap is the hand-written validation of a ConfigMap, as kube's
// validation.ValidateConfigMap; the generated strategy calls it on create (and, through
// ValidateConfigMapUpdate, on update), after the checks generated from the markers and the
// metadata's. Errors, each a field error of the 422 Invalid status: a data or binaryData key
// that is not a valid ConfigMap key (validation.IsConfigMapKey: [-._a-zA-Z0-9]+, at most 253
// characters, not "." or "..", not starting with ".."); a data key also in binaryData
// ("duplicate of key present in binaryData"); values of more than MaxConfigMapSize bytes in
// all (a TooLong error on the whole object: the empty field path, which prints as "[]").
func ValidateConfigMap(obj *ConfigMap) field.ErrorList {
	var errs field.ErrorList
	total := 0
	// Sorted keys: the errors come in the same order every time.
	for _, key := range slices.Sorted(maps.Keys(obj.Data)) {
		path := field.NewPath("data").Key(key)
		for _, msg := range validation.IsConfigMapKey(key) {
			errs = append(errs, field.Invalid(path, key, msg))
		}
		if _, dup := obj.BinaryData[key]; dup {
			errs = append(errs, field.Invalid(path, key, "duplicate of key present in binaryData"))
		}
		total += len(obj.Data[key])
	}
	for _, key := range slices.Sorted(maps.Keys(obj.BinaryData)) {
		for _, msg := range validation.IsConfigMapKey(key) {
			errs = append(errs, field.Invalid(field.NewPath("binaryData").Key(key), key, msg))
		}
		total += len(obj.BinaryData[key])
	}
	if total > MaxConfigMapSize {
		// The empty path: the error is about the whole object, as kube reports it.
		errs = append(errs, field.TooLong(field.NewPath(""), "", MaxConfigMapSize))
	}
	return errs
}

// ValidateConfigMapUpdate is the hand-written validation of a ConfigMap update, as kube's
// validation.ValidateConfigMapUpdate: when old is immutable (immutable: true), obj may not
// change data or binaryData, nor unset immutable (each a Forbidden error "field is immutable
// when `immutable` is set" on its field); then obj passes ValidateConfigMap. Only metadata
// changes on an immutable ConfigMap.
func ValidateConfigMapUpdate(obj, old *ConfigMap) field.ErrorList {
	var errs field.ErrorList
	if old.Immutable != nil && *old.Immutable {
		const msg = "field is immutable when `immutable` is set"
		if obj.Immutable == nil || !*obj.Immutable {
			errs = append(errs, field.Forbidden(field.NewPath("immutable"), msg))
		}
		// Compared as kube compares them (reflect.DeepEqual).
		if !reflect.DeepEqual(obj.Data, old.Data) {
			errs = append(errs, field.Forbidden(field.NewPath("data"), msg))
		}
		if !reflect.DeepEqual(obj.BinaryData, old.BinaryData) {
			errs = append(errs, field.Forbidden(field.NewPath("binaryData"), msg))
		}
	}
	return append(errs, ValidateConfigMap(obj)...)
}
