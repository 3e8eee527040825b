package endpoints

import (
	"context"
	"net/http"
	"sync/atomic"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/responsewriters"
	"github.com/apigen-dev/apigen/runtime/rest"
	"github.com/apigen-dev/apigen/runtime/tracing"
)

// replacement is the rest.UpdatedObjectInfo of a PUT: the decoded body, whatever is stored
// (the store checks its resourceVersion against the stored one).
type replacement struct {
	obj runtime.Object
	// given is set once obj has been handed out; decode decodes the body again.
	given  atomic.Bool
	decode func() (runtime.Object, error)
}

// UpdatedObject returns the body: the decoded object itself the first time (the store may
// change it, and nothing else holds it), a new decode of the body on a retry, which is rare
// (a lost race), instead of a copy on every try.
func (r *replacement) UpdatedObject(context.Context, runtime.Object) (runtime.Object, error) {
	if r.given.CompareAndSwap(false, true) {
		return r.obj, nil
	}
	return r.decode()
}

var (
	_ registry.OldObjectPreserver = (*replacement)(nil)
	_ registry.OldObjectPreserver = (*patcher)(nil)
)

// PreservesOldObject implements registry.OldObjectPreserver: UpdatedObject ignores the
// stored object.
func (r *replacement) PreservesOldObject() bool { return true }

// update serves PUT, as kube's UpdateResource: 200 with the stored object, 201 when the
// update created it; managedFields record the request's manager.
func (s *scope) update(updater rest.Updater) handlerFunc {
	return func(ctx context.Context, w http.ResponseWriter, req *http.Request, namespace, name string) {
		opts := &metav1.UpdateOptions{}
		body, err := readWrite(req, "UpdateOptions", opts, func() ([]string, string) { return opts.DryRun, opts.FieldValidation })
		if err == nil {
			err = validateFieldManager("UpdateOptions", opts.FieldManager)
		}
		if err != nil {
			responsewriters.WriteError(w, err)
			return
		}
		directive := fieldValidation(opts.FieldValidation)
		obj, warnings, err := s.decoder.Decode(req, body, directive)
		if err == nil {
			err = checkName(obj, name, namespace)
		}
		if err != nil {
			responsewriters.WriteError(w, err)
			return
		}
		again := func() (runtime.Object, error) {
			obj, _, err := s.decoder.Decode(req, body, directive)
			return obj, err
		}
		objInfo := &managedUpdate{UpdatedObjectInfo: &replacement{obj: obj, decode: again}, scope: s, manager: managerOf(req, opts.FieldManager)}
		tracing.AddEvent(ctx, eventAboutToStore)
		out, created, err := updater.Update(s.decoder.WithDocument(ctx, req, body), name, objInfo, false, opts)
		tracing.AddEvent(ctx, eventStored)
		if err != nil {
			responsewriters.WriteError(w, err)
			return
		}
		code := http.StatusOK
		if created {
			code = http.StatusCreated
		}
		addWarnings(w, warnings)
		tracing.AddEvent(ctx, eventAboutToRespond)
		s.writeObject(ctx, w, req, code, out)
	}
}
