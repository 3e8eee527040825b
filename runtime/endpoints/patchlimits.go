package endpoints

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kjson "sigs.k8s.io/json"
)

// maxJSONPatchOperations is the most operations a JSON patch may have, as kube-apiserver's
// patch handler (k8s.io/apiserver/pkg/endpoints/handlers/patch.go).
const maxJSONPatchOperations = 10000

// jsonPatchMaxCopyBytes bounds the bytes the copy operations of one JSON patch may add to the
// document, as kube-apiserver's JSONPatchMaxCopyBytes: its default is the request body limit.
// Without it, a patch of a few dozen copy operations, each doubling the document, asks for
// gigabytes.
const jsonPatchMaxCopyBytes = int64(maxBodyBytes)

var limitCopiesOnce sync.Once

// limitJSONPatchCopies sets json-patch's AccumulatedCopySizeLimit (a package variable) to
// jsonPatchMaxCopyBytes, unless something else already set a lower limit, as
// k8s.io/apiserver's GenericAPIServer does once when it is built. The handlers call it when
// their PATCH routes are installed, before the server serves.
func limitJSONPatchCopies() {
	limitCopiesOnce.Do(func() {
		for {
			existing := atomic.LoadInt64(&jsonpatch.AccumulatedCopySizeLimit)
			if existing > 0 && existing <= jsonPatchMaxCopyBytes {
				return
			}
			if atomic.CompareAndSwapInt64(&jsonpatch.AccumulatedCopySizeLimit, existing, jsonPatchMaxCopyBytes) {
				return
			}
		}
	})
}

// jsonPatchOp is one operation of a JSON patch, for strict decoding, as kube's.
type jsonPatchOp struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	From  string `json:"from"`
	Value any    `json:"value"`
}

// patchStrictErrors reports the duplicate fields of a merge or strategic merge patch, and the
// duplicate and unknown fields of a JSON patch's operations (prefixed "json patch "), as
// kube-apiserver decodes patches with sigs.k8s.io/json's UnmarshalStrict when fieldValidation
// is Strict or Warn. A patch that is not JSON at all is left to the patch's own decoding.
func patchStrictErrors(pt types.PatchType, patch []byte) []error {
	var errs []error
	switch pt {
	case types.JSONPatchType:
		var ops []jsonPatchOp
		errs, _ = kjson.UnmarshalStrict(patch, &ops)
		for i, e := range errs {
			errs[i] = fmt.Errorf("json patch %w", e)
		}
	case types.MergePatchType, types.StrategicMergePatchType:
		m := map[string]any{}
		errs, _ = kjson.UnmarshalStrict(patch, &m)
	}
	return errs
}

// decodeJSONPatch decodes a JSON patch (400 when it is not one) and refuses one with more than
// maxJSONPatchOperations operations with 413 RequestEntityTooLarge and kube-apiserver's
// message.
func decodeJSONPatch(patch []byte) (jsonpatch.Patch, error) {
	ops, err := jsonpatch.DecodePatch(patch)
	if err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("cannot decode the JSON patch: %v", err))
	}
	if len(ops) > maxJSONPatchOperations {
		return nil, apierrors.NewRequestEntityTooLargeError(
			fmt.Sprintf("The allowed maximum operations in a JSON patch is %d, got %d", maxJSONPatchOperations, len(ops)))
	}
	return ops, nil
}

// strictPatchError is the 422 a patch gets under fieldValidation=Strict when the patch or the
// patched object has unknown or duplicate fields, as kube-apiserver's patch handler: an
// Invalid error on field "patch" whose value is the patched object.
func strictPatchError(patched []byte, errs []error) error {
	return apierrors.NewInvalid(schema.GroupKind{}, "", field.ErrorList{
		field.Invalid(field.NewPath("patch"), string(patched), runtime.NewStrictDecodingError(errs).Error()),
	})
}

// strictWarnings turns the messages requestbody.Decoder.DecodeWith collected under Warn back into errors.
func strictWarnings(warnings []string) []error {
	errs := make([]error, len(warnings))
	for i, w := range warnings {
		errs[i] = errors.New(w)
	}
	return errs
}

// decodeDirective is the fieldValidation a patched object is decoded with: Strict is decoded
// as Warn, so that its strict errors come back to the patch handler, which answers them as
// kube-apiserver's does (see strictPatchError).
func decodeDirective(directive string) string {
	if directive == metav1.FieldValidationStrict {
		return metav1.FieldValidationWarn
	}
	return directive
}
