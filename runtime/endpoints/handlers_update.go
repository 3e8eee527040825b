package endpoints

import (
	"context"
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apigen-dev/apigen/runtime/responsewriters"
	"github.com/apigen-dev/apigen/runtime/rest"
)

// replacement is the rest.UpdatedObjectInfo of a PUT: the decoded body, whatever is stored
// (the store checks its resourceVersion against the stored one).
type replacement struct{ obj runtime.Object }

// UpdatedObject returns a fresh copy of the body on every (re)try.
func (r replacement) UpdatedObject(context.Context, runtime.Object) (runtime.Object, error) {
	return r.obj.DeepCopyObject(), nil
}

// update serves PUT, as kube's UpdateResource: 200 with the stored object, 201 when the
// update created it.
func (s *scope) update(updater rest.Updater) handlerFunc {
	return func(ctx context.Context, w http.ResponseWriter, req *http.Request, _, name string) {
		opts := &metav1.UpdateOptions{}
		body, err := readWrite(req, "UpdateOptions", opts, func() ([]string, string) { return opts.DryRun, opts.FieldValidation })
		if err != nil {
			responsewriters.WriteError(w, err)
			return
		}
		obj, warnings, err := s.decodeBody(req, body, fieldValidation(opts.FieldValidation))
		if err != nil {
			responsewriters.WriteError(w, err)
			return
		}
		out, created, err := updater.Update(ctx, name, replacement{obj}, false, opts)
		if err != nil {
			responsewriters.WriteError(w, err)
			return
		}
		code := http.StatusOK
		if created {
			code = http.StatusCreated
		}
		addWarnings(w, warnings)
		s.writeObject(ctx, w, req, code, out)
	}
}
