package validation

import (
	"context"
	"encoding/json"
	"strconv"

	"k8s.io/apimachinery/pkg/api/operation"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	openapierrors "k8s.io/kube-openapi/pkg/validation/errors"
	openapivalidate "k8s.io/kube-openapi/pkg/validation/validate"
)

// MinItems verifies that value has at least min items, as kube-apiserver checks a CRD
// schema's minItems. The error is field.Invalid with "<path> in body should have at least
// <min> items".
func MinItems[T any](_ context.Context, _ operation.Operation, fldPath *field.Path, value, _ []T, min int64) field.ErrorList {
	return openAPIErrors(fldPath, openapivalidate.MinItems(fldPath.String(), openAPIIn, int64(len(value)), min), "minItems")
}

// MaxItems verifies that value has at most max items, as kube-apiserver checks a CRD
// schema's maxItems. The error is field.TooMany, "Too many: <n>: must have at most <max>
// items".
func MaxItems[T any](_ context.Context, _ operation.Operation, fldPath *field.Path, value, _ []T, max int64) field.ErrorList {
	return openAPIErrors(fldPath, openapivalidate.MaxItems(fldPath.String(), openAPIIn, int64(len(value)), max), "maxItems")
}

// MinProperties verifies that value has at least min entries, as kube-apiserver checks a
// CRD schema's minProperties. The error is field.Invalid with "<path> in body should have
// at least <min> properties".
func MinProperties[K comparable, V any](_ context.Context, _ operation.Operation, fldPath *field.Path, value, _ map[K]V, min int64) field.ErrorList {
	if n := int64(len(value)); n < min {
		return openAPIErrors(fldPath, openapierrors.TooFewProperties(fldPath.String(), openAPIIn, min, n), "minProperties")
	}
	return nil
}

// MaxProperties verifies that value has at most max entries, as kube-apiserver checks a
// CRD schema's maxProperties. The error is field.TooMany, "Too many: <n>: must have at most
// <max> items".
func MaxProperties[K comparable, V any](_ context.Context, _ operation.Operation, fldPath *field.Path, value, _ map[K]V, max int64) field.ErrorList {
	if n := int64(len(value)); n > max {
		return openAPIErrors(fldPath, openapierrors.TooManyProperties(fldPath.String(), openAPIIn, max, n), "maxProperties")
	}
	return nil
}

// UniqueSet verifies that the items of value, an x-kubernetes-list-type=set list (or
// +k8s:unique=set, UniqueItems), are distinct as their JSON forms, as apiextensions-apiserver's
// listtype validation: the second occurrence of each repeated item is a field.Duplicate at
// its index, with the item (as JSON) as the value (`Duplicate value: "Scout"`); later ones
// are not reported again.
func UniqueSet[T any](_ context.Context, _ operation.Operation, fldPath *field.Path, value, _ []T) field.ErrorList {
	if len(value) <= 1 {
		return nil
	}
	seen := make(map[string]int, len(value))
	var errs field.ErrorList
	for i := range value {
		j, item := asJSON(value[i])
		seen[j]++
		if seen[j] == 2 {
			errs = append(errs, field.Duplicate(fldPath.Index(i), item).WithOrigin("listType=set"))
		}
	}
	return errs
}

// UniqueMapKeys verifies that the items of value, an x-kubernetes-list-type=map list, differ
// in their key fields (JSON names), as apiextensions-apiserver's listtype validation: the
// second occurrence of each repeated key is a field.Duplicate at its index whose value is
// the key fields the item has, as JSON (`Duplicate value: {"slot":3}`). A key field the item
// does not have counts as unspecified, not as its zero value: one the item's JSON leaves out,
// or one whose zero value KeyPresent says the request left out (a tool without slot is not a
// duplicate of one with slot 0, as in a custom resource).
func UniqueMapKeys[T any](ctx context.Context, _ operation.Operation, fldPath *field.Path, value, _ []T, keys ...string) field.ErrorList {
	if len(value) <= 1 {
		return nil
	}
	seen := make(map[string]int, len(value))
	var errs field.ErrorList
	for i := range value {
		_, item := asJSON(value[i])
		obj, _ := item.(map[string]any)
		key := map[string]any{}
		for _, k := range keys {
			if v, ok := obj[k]; ok && (!zeroJSON(v) || KeyPresent(ctx, fldPath.Index(i).Child(k), true)) {
				key[k] = v
			}
		}
		j, _ := json.Marshal(key)
		seen[string(j)]++
		if seen[string(j)] == 2 {
			errs = append(errs, field.Duplicate(fldPath.Index(i), key).WithOrigin("listType=map"))
		}
	}
	return errs
}

// asJSON returns v's JSON encoding and v decoded from it as an unstructured value (maps,
// lists, strings, int64, float64, bools), the shape kube-apiserver holds custom resources in.
func asJSON(v any) (string, any) {
	data, err := json.Marshal(v)
	if err != nil {
		return "error: " + strconv.Quote(err.Error()), nil
	}
	var out any
	if err := utiljson.Unmarshal(data, &out); err != nil {
		return string(data), nil
	}
	return string(data), out
}

// zeroJSON reports whether v, a value decoded from JSON, is null, "", 0 or false: a value the
// Go object holds for a key the request may have left out.
func zeroJSON(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case string:
		return v == ""
	case bool:
		return !v
	case int64:
		return v == 0
	case float64:
		return v == 0
	}
	return false
}
