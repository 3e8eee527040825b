package endpoints

import (
	"context"
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/apigen-dev/apigen/runtime/responsewriters"
	"github.com/apigen-dev/apigen/runtime/rest"
	"github.com/apigen-dev/apigen/runtime/tracing"
)

// create serves POST, as kube's CreateResource: 201 Created with the stored object, its
// managedFields recording the request's manager.
func (s *scope) create(creater rest.Creater) handlerFunc {
	return func(ctx context.Context, w http.ResponseWriter, req *http.Request, _, _ string) {
		opts := &metav1.CreateOptions{}
		body, err := readWrite(req, "CreateOptions", opts, func() ([]string, string) { return opts.DryRun, opts.FieldValidation })
		if err == nil {
			err = validateFieldManager("CreateOptions", opts.FieldManager)
		}
		if err != nil {
			responsewriters.WriteError(w, err)
			return
		}
		obj, warnings, err := s.decoder.Decode(req, body, fieldValidation(opts.FieldValidation))
		if err != nil {
			responsewriters.WriteError(w, err)
			return
		}
		ctx = s.decoder.WithDocument(ctx, req, body)
		tracing.AddEvent(ctx, eventAboutToStore)
		obj, err = s.managed(nil, obj, managerOf(req, opts.FieldManager))
		if err != nil {
			responsewriters.WriteError(w, err)
			return
		}
		out, err := creater.Create(ctx, obj, opts)
		tracing.AddEvent(ctx, eventStored)
		if err != nil {
			responsewriters.WriteError(w, err)
			return
		}
		addWarnings(w, warnings)
		tracing.AddEvent(ctx, eventAboutToRespond)
		s.writeObject(ctx, w, req, http.StatusCreated, out)
	}
}
