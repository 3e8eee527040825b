package endpoints

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"regexp"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	kjson "sigs.k8s.io/json"

	"github.com/apigen-dev/apigen/runtime/endpoints/requestbody"
	"github.com/apigen-dev/apigen/runtime/fieldmanager"
	"github.com/apigen-dev/apigen/runtime/request"
	"github.com/apigen-dev/apigen/runtime/responsewriters"
	"github.com/apigen-dev/apigen/runtime/rest"
)

// applier is the rest.UpdatedObjectInfo of a server-side apply (PATCH with
// application/apply-patch+yaml), as kube-apiserver's applyPatcher: the applied configuration
// is merged into the stored object by field ownership (FieldManager.Apply), or into an empty
// object when nothing is stored, which creates it.
type applier struct {
	scope     *scope
	patch     []byte
	manager   string
	force     bool
	directive string
	name      string
	// doc is the request's document (request.Document): the applied configuration when the
	// apply creates the object, which it then is; none when it merges into a stored object,
	// whose result is no document the client wrote.
	doc *request.Document

	mu       sync.Mutex
	warnings []string
}

// UpdatedObject merges the applied configuration into old (nil: nothing stored). Errors: 400
// for a body that is not a YAML or JSON object, a wrong apiVersion or kind, managedFields in
// the body, fields the kind's schema does not declare, and (fieldValidation=Strict)
// duplicate fields; 409 Conflict for fields another manager owns (without force), and for a
// uid in the body when nothing is stored.
func (a *applier) UpdatedObject(ctx context.Context, old runtime.Object) (runtime.Object, error) {
	live := old
	if live == nil {
		live = a.scope.storage.New()
	}
	content, strict := decodeJSONConfiguration(a.patch)
	if content == nil {
		content = map[string]any{}
		if err := utilyaml.Unmarshal(a.patch, &content); err != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding patch: %v", err))
		}
	}
	a.doc.Set(schema.GroupVersionKind{}, nil)
	if old == nil {
		if data, err := json.Marshal(content); err == nil {
			a.doc.Set(a.scope.kind, data)
		}
	}
	fm, err := a.scope.fieldManager()
	if err != nil {
		return nil, err
	}
	obj, err := fm.Apply(live, &unstructured.Unstructured{Object: content}, a.manager, a.force)
	if err != nil {
		return nil, applyError(err)
	}
	if !strict && (a.directive == metav1.FieldValidationStrict || a.directive == metav1.FieldValidationWarn) {
		if err := utilyaml.UnmarshalStrict(a.patch, &map[string]any{}); err != nil {
			if a.directive == metav1.FieldValidationStrict {
				return nil, apierrors.NewBadRequest(fmt.Sprintf("error strict decoding patch: %v", err))
			}
			a.mu.Lock()
			a.warnings = append(a.warnings, err.Error())
			a.mu.Unlock()
		}
	}
	if old == nil {
		if m, err := meta.Accessor(obj); err == nil && m.GetUID() != "" {
			return nil, apierrors.NewConflict(a.scope.qualified, a.name,
				fmt.Errorf("uid mismatch: the provided object specified uid %s, and no existing object was found", m.GetUID()))
		}
	}
	return obj, nil
}

// decodeJSONConfiguration decodes an apply configuration sent as JSON (client-go's Apply
// sends JSON as application/apply-patch+yaml) without the YAML parser, into what
// k8s.io/apimachinery's yaml.Unmarshal, which kube-apiserver decodes it with, returns:
// integral numbers within int64 as int64, others as float64. strict reports that the
// document has no duplicate fields (so UnmarshalStrict would accept it too). nil when patch is
// not one JSON object, has duplicate fields, or holds what JSON and YAML read differently
// (the escapes \/ and \u of a surrogate, which YAML refuses, or a tab): the YAML path then
// decodes it and words the errors.
func decodeJSONConfiguration(patch []byte) (content map[string]any, strict bool) {
	trimmed := bytes.TrimSpace(patch)
	if len(trimmed) == 0 || trimmed[0] != '{' || bytes.Contains(trimmed, []byte(`\/`)) ||
		bytes.IndexByte(trimmed, '\t') >= 0 || surrogateEscape.Match(trimmed) {
		return nil, false
	}
	var m map[string]any
	strictErrs, err := kjson.UnmarshalStrict(trimmed, &m)
	if err != nil || len(strictErrs) > 0 || m == nil {
		return nil, false
	}
	integralNumbers(m)
	return m, true
}

// surrogateEscape matches a JSON \u escape of a UTF-16 surrogate.
var surrogateEscape = regexp.MustCompile(`\\u[dD][89a-fA-F]`)

// integralNumbers turns every float64 in v (a decoded JSON map or slice, walked in place)
// that is a whole number within int64 into an int64, as a YAML-decoded document has it.
func integralNumbers(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			t[k] = integralNumbers(e)
		}
	case []any:
		for i, e := range t {
			t[i] = integralNumbers(e)
		}
	case float64:
		if t == math.Trunc(t) && t >= math.MinInt64 && t < math.MaxInt64 {
			return int64(t)
		}
	}
	return v
}

// applyError returns err as the client sees it: an apply configuration with a field the
// schema does not declare is the client's error, 400 BadRequest with managedfields' message
// ("failed to create typed patch object (...): .spec.foo: field not declared in schema"),
// where kube-apiserver still answers 500 (kubernetes/kubernetes#122480 and #139253 track
// the fix to 400); a failed conversion (managedfields keeps only its message: "failed to
// convert to unversioned (...): conversion webhook for ... failed: ...") is 500 with that
// message and no reason, as kube-apiserver answers an error that is no Status; every other
// error is kept.
func applyError(err error) error {
	if _, ok := err.(apierrors.APIStatus); ok {
		return err
	}
	switch {
	case strings.HasPrefix(err.Error(), "failed to create typed patch object"):
		return apierrors.NewBadRequest(err.Error())
	case strings.Contains(err.Error(), "conversion webhook for "):
		return &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: http.StatusInternalServerError, Message: err.Error()}}
	}
	return err
}

// apply serves a server-side apply, as kube-apiserver's PatchResource with an apply patch:
// 201 Created when the apply created the object, else 200.
func (s *scope) apply(ctx context.Context, w http.ResponseWriter, req *http.Request, name string,
	updater rest.Updater, opts *metav1.PatchOptions, body []byte) {
	if s.fieldManager == nil { // field management off: no apply, as kube-apiserver without ServerSideApply
		responsewriters.WriteError(w, requestbody.NewUnsupportedMediaType(string(types.ApplyYAMLPatchType), patchTypes[:3]))
		return
	}
	a := &applier{scope: s, patch: body, manager: opts.FieldManager, force: opts.Force != nil && *opts.Force,
		directive: fieldValidation(opts.FieldValidation), name: name, doc: &request.Document{}}
	updateOpts := &metav1.UpdateOptions{DryRun: opts.DryRun, FieldManager: opts.FieldManager, FieldValidation: opts.FieldValidation}
	out, created, err := updater.Update(request.WithDocument(ctx, a.doc), name, a, true, updateOpts)
	if err != nil {
		responsewriters.WriteError(w, err)
		return
	}
	a.mu.Lock()
	addWarnings(w, a.warnings)
	a.mu.Unlock()
	code := http.StatusOK
	if created {
		code = http.StatusCreated
	}
	s.writeObject(ctx, w, req, code, out)
}

// validatePatchOptions checks what only a PATCH's options can get wrong, as kube-apiserver's
// ValidatePatchOptions (422 Invalid on PatchOptions.meta.k8s.io): force only with apply,
// fieldManager required with apply ("is required for apply patch") and at most 128
// printable characters.
func validatePatchOptions(opts *metav1.PatchOptions, pt types.PatchType) error {
	errs := metav1validation.ValidatePatchOptions(opts, pt)
	if len(errs) > 0 {
		return apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: "PatchOptions"}, "", errs)
	}
	return nil
}

// validateFieldManager checks a create's or update's fieldManager (at most 128 printable
// characters), as kube-apiserver's ValidateCreateOptions and ValidateUpdateOptions; kind names
// the options type in the 422 Invalid.
func validateFieldManager(kind, manager string) error {
	errs := metav1validation.ValidateFieldManager(manager, field.NewPath("fieldManager"))
	if len(errs) > 0 {
		return apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: kind}, "", errs)
	}
	return nil
}

// managerOf returns the manager a write by req is recorded under (fieldmanager.ManagerName).
func managerOf(req *http.Request, fieldManager string) string {
	return fieldmanager.ManagerName(fieldManager, req.UserAgent())
}
