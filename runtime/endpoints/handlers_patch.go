package endpoints

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"sync"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"

	"github.com/apigen-dev/apigen/runtime/endpoints/requestbody"
	"github.com/apigen-dev/apigen/runtime/request"
	"github.com/apigen-dev/apigen/runtime/responsewriters"
	"github.com/apigen-dev/apigen/runtime/rest"
	"github.com/apigen-dev/apigen/runtime/tracing"
)

// patchTypes are the PATCH media types, as kube-apiserver lists them for kubectl.
var patchTypes = []string{
	string(types.JSONPatchType), string(types.MergePatchType),
	string(types.StrategicMergePatchType), string(types.ApplyYAMLPatchType),
}

// patcher is the rest.UpdatedObjectInfo of a PATCH: it applies the patch to the stored
// object in the URL's version, then decodes, defaults and converts the result back.
type patcher struct {
	scope     *scope
	patchType types.PatchType
	patch     []byte
	directive string
	namespace string
	name      string
	// doc is the request's document: each attempt's patched object (request.Document).
	doc *request.Document
	// strictErrs are the patch's own duplicate (or, for a JSON patch, unknown) fields
	// under fieldValidation Strict or Warn (patchStrictErrors).
	strictErrs []error

	mu       sync.Mutex
	warnings []string
}

// PreservesOldObject implements registry.OldObjectPreserver: UpdatedObject only encodes
// old (the versioning codec puts its apiVersion and kind back).
func (p *patcher) PreservesOldObject() bool { return true }

// UpdatedObject applies the patch to old. Errors: 404 when nothing is stored, 400 for a
// malformed patch, 413 for a JSON patch of too many operations, 422 when it does not apply
// (a JSON patch whose copies outgrow jsonPatchMaxCopyBytes included) and, under
// fieldValidation=Strict, for unknown or duplicate fields, as kube-apiserver's patch handler;
// the context's error once the request's deadline has passed.
func (p *patcher) UpdatedObject(ctx context.Context, old runtime.Object) (runtime.Object, error) {
	if old == nil {
		return nil, apierrors.NewNotFound(p.scope.qualified, p.name)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	current, err := p.scope.encode(old, false)
	if err != nil {
		return nil, err
	}
	patched, err := p.apply(current)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err // the client is gone or out of time: do not decode and validate
	}
	p.doc.Set(p.scope.kind, patched)
	ser := p.scope.JSON
	if p.directive != metav1.FieldValidationIgnore {
		ser = p.scope.StrictJSON
	}
	obj, warnings, err := p.scope.decoder.DecodeWith(ser, patched, decodeDirective(p.directive))
	if err != nil {
		return nil, err
	}
	if p.directive == metav1.FieldValidationStrict && len(p.strictErrs)+len(warnings) > 0 {
		return nil, strictPatchError(patched, append(p.strictErrs, strictWarnings(warnings)...))
	}
	if p.directive == metav1.FieldValidationWarn {
		for _, e := range p.strictErrs {
			warnings = append(warnings, e.Error())
		}
	}
	if err := ensureNamespace(p.scope, p.namespace, obj); err != nil {
		return nil, err
	}
	if err := checkName(obj, p.name, p.namespace); err != nil {
		return nil, err
	}
	p.mu.Lock()
	p.warnings = warnings
	p.mu.Unlock()
	return obj, nil
}

// apply applies the patch to the JSON document current. A patch that is not a JSON patch,
// merge patch or strategic merge patch at all is 400 BadRequest; one that does not apply to
// current is 422, as kube-apiserver's patch handler.
func (p *patcher) apply(current []byte) ([]byte, error) {
	switch p.patchType {
	case types.JSONPatchType:
		patch, err := decodeJSONPatch(p.patch)
		if err != nil {
			return nil, err
		}
		if err := checkCopyBudget(current, patch); err != nil {
			return nil, p.invalid(err)
		}
		out, err := patch.Apply(current)
		if err != nil {
			return nil, p.invalid(err)
		}
		return out, nil
	case types.MergePatchType:
		out, err := jsonpatch.MergePatch(current, p.patch)
		if errors.Is(err, jsonpatch.ErrBadJSONPatch) {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("cannot decode the merge patch: %v", err))
		}
		if err != nil {
			return nil, p.invalid(err)
		}
		return out, nil
	case types.StrategicMergePatchType:
		if !json.Valid(p.patch) {
			return nil, apierrors.NewBadRequest("cannot decode the strategic merge patch: it is not valid JSON")
		}
		schema, err := p.scope.newVersioned()
		if err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		out, err := strategicpatch.StrategicMergePatch(current, p.patch, schema)
		if err != nil {
			return nil, p.invalid(err)
		}
		return out, nil
	}
	return nil, requestbody.NewUnsupportedMediaType(string(p.patchType), patchTypes)
}

// invalid is the 422 a patch that does not apply gets, as kube's patch handler.
func (p *patcher) invalid(err error) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusUnprocessableEntity, Reason: metav1.StatusReasonInvalid,
		Message: fmt.Sprintf("cannot apply the patch to %s %q: %v", p.scope.qualified, p.name, err),
		Details: &metav1.StatusDetails{Name: p.name, Group: p.scope.qualified.Group, Kind: p.scope.qualified.Resource},
	}}
}

// patchType reads a PATCH's Content-Type: 415 for any type but patchTypes (server-side
// apply's CBOR form, application/apply-patch+cbor, included).
func patchType(req *http.Request) (types.PatchType, error) {
	mediaType, _, err := mime.ParseMediaType(req.Header.Get("Content-Type"))
	if err != nil {
		return "", requestbody.NewUnsupportedMediaType(req.Header.Get("Content-Type"), patchTypes)
	}
	switch pt := types.PatchType(mediaType); pt {
	case types.JSONPatchType, types.MergePatchType, types.StrategicMergePatchType, types.ApplyYAMLPatchType:
		return pt, nil
	}
	return "", requestbody.NewUnsupportedMediaType(mediaType, patchTypes)
}

// patch serves PATCH, as kube's PatchResource: the patch is applied inside the storage's
// read-modify-write, so it always applies to the latest object.
func (s *scope) patch(updater rest.Updater) handlerFunc {
	limitJSONPatchCopies()
	return func(ctx context.Context, w http.ResponseWriter, req *http.Request, namespace, name string) {
		pt, err := patchType(req)
		if err == nil && pt == types.StrategicMergePatchType && s.unstructured() {
			err = requestbody.NewUnsupportedMediaType(string(pt), s.patchTypes())
		}
		if err != nil {
			responsewriters.WriteError(w, err)
			return
		}
		opts := &metav1.PatchOptions{}
		body, err := readWrite(req, "PatchOptions", opts, func() ([]string, string) { return opts.DryRun, opts.FieldValidation })
		if err == nil {
			err = validatePatchOptions(opts, pt)
		}
		if err != nil {
			responsewriters.WriteError(w, err)
			return
		}
		if pt == types.ApplyYAMLPatchType {
			s.apply(ctx, w, req, name, updater, opts, body)
			return
		}
		p := &patcher{scope: s, patchType: pt, patch: body, directive: fieldValidation(opts.FieldValidation), namespace: namespace, name: name,
			doc: &request.Document{}}
		ctx = request.WithDocument(ctx, p.doc)
		if p.directive != metav1.FieldValidationIgnore {
			p.strictErrs = patchStrictErrors(pt, body)
		}
		updateOpts := &metav1.UpdateOptions{DryRun: opts.DryRun, FieldManager: opts.FieldManager, FieldValidation: opts.FieldValidation}
		tracing.AddEvent(ctx, eventAboutToStore)
		out, _, err := updater.Update(ctx, name, &managedUpdate{UpdatedObjectInfo: p, scope: s, manager: managerOf(req, opts.FieldManager)}, false, updateOpts)
		tracing.AddEvent(ctx, eventStored)
		if err != nil {
			responsewriters.WriteError(w, err)
			return
		}
		p.mu.Lock()
		addWarnings(w, p.warnings)
		p.mu.Unlock()
		tracing.AddEvent(ctx, eventAboutToRespond)
		s.writeObject(ctx, w, req, http.StatusOK, out)
	}
}

// patchTypes are the PATCH media types the scope accepts, which its route advertises (the
// OpenAPI operation's consumes, from which kubectl apply picks a strategic merge patch): all of
// patchTypes, or for custom resources all but strategic merge patch, as kube-apiserver: they
// have no Go struct to read patch strategies from.
func (s *scope) patchTypes() []string {
	if s.unstructured() {
		return []string{string(types.JSONPatchType), string(types.MergePatchType), string(types.ApplyYAMLPatchType)}
	}
	return patchTypes
}

// unstructured reports whether the scope serves unstructured objects (custom resources),
// which strategic merge patches cannot apply to.
func (s *scope) unstructured() bool {
	obj, err := s.newVersioned()
	if err != nil {
		return false
	}
	_, ok := obj.(runtime.Unstructured)
	return ok
}
