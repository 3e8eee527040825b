package endpoints

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/apigen-dev/apigen/runtime/endpoints/requestbody"
	"github.com/apigen-dev/apigen/runtime/responsewriters"
	"github.com/apigen-dev/apigen/runtime/rest"
	"github.com/apigen-dev/apigen/runtime/tracing"
)

// deleteOptions reads DeleteOptions from a JSON or YAML body (kind DeleteOptions of v1 or
// meta.k8s.io/v1, as kubectl sends it), a protobuf one of a built-in group (as client-go's
// typed clients send it) or, when the body is empty, from the query, and
// validates them as kube-apiserver's delete handlers do, before anything is deleted
// (apimachinery's ValidateDeleteOptions; ignoreStoreReadErrorWithClusterBreakingPotential is
// dropped, as kube drops it with its AllowUnsafeMalformedObjectDeletion feature off).
// Errors: 400 for what does not decode, 422 Invalid (kind DeleteOptions) for an unknown
// propagationPolicy, one given with orphanDependents, or an unsupported dryRun.
func deleteOptions(req *http.Request) (*metav1.DeleteOptions, error) {
	opts := &metav1.DeleteOptions{}
	body, err := readBody(req)
	if err != nil {
		return nil, err
	}
	if len(body) == 0 {
		if err := decodeQuery(req, opts); err != nil {
			return nil, err
		}
	} else {
		var data []byte
		if requestbody.IsProtobuf(req) {
			// client-go's typed clients of the built-in groups send DeleteOptions as protobuf.
			data, err = requestbody.ProtobufToJSON(body)
		} else {
			data, err = utilyaml.ToJSON(body)
		}
		if err != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("cannot decode DeleteOptions: %v", err))
		}
		if err := json.Unmarshal(data, opts); err != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("cannot decode DeleteOptions: %v", err))
		}
		if opts.Kind != "" && opts.Kind != "DeleteOptions" {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("expected a DeleteOptions body, got kind %q", opts.Kind))
		}
	}
	opts.IgnoreStoreReadErrorWithClusterBreakingPotential = nil
	if errs := metav1validation.ValidateDeleteOptions(opts); len(errs) > 0 {
		return nil, apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: "DeleteOptions"}, "", errs)
	}
	return opts, nil
}

// deleteOne serves DELETE of one object, as kube's DeleteResource: 200 with the deleted
// object (or the object finalizers keep); 202 when it was kept and the client asked for
// non-orphaning deletion.
func (s *scope) deleteOne(deleter rest.GracefulDeleter) handlerFunc {
	return func(ctx context.Context, w http.ResponseWriter, req *http.Request, _, name string) {
		opts, err := deleteOptions(req)
		if err != nil {
			responsewriters.WriteError(w, err)
			return
		}
		tracing.AddEvent(ctx, eventAboutToDelete)
		obj, deleted, err := deleter.Delete(ctx, name, opts)
		tracing.AddEvent(ctx, eventDeleted)
		if err != nil {
			responsewriters.WriteError(w, err)
			return
		}
		code := http.StatusOK
		if !deleted && opts.OrphanDependents != nil && !*opts.OrphanDependents { //nolint:staticcheck // kube's compatibility rule
			code = http.StatusAccepted
		}
		tracing.AddEvent(ctx, eventAboutToRespond)
		s.writeObject(ctx, w, req, code, obj)
	}
}

// deleteCollection serves DELETE of the collection: the list selectors come from the query,
// DeleteOptions from the body (or the query); 200 with the list of deleted objects.
func (s *scope) deleteCollection(deleter rest.CollectionDeleter) handlerFunc {
	return func(ctx context.Context, w http.ResponseWriter, req *http.Request, _, _ string) {
		listOpts, err := listOptions(req, false)
		if err != nil {
			responsewriters.WriteError(w, err)
			return
		}
		opts, err := deleteOptions(req)
		if err != nil {
			responsewriters.WriteError(w, err)
			return
		}
		obj, err := deleter.DeleteCollection(ctx, opts, listOpts)
		if err != nil {
			responsewriters.WriteError(w, err)
			return
		}
		s.writeObject(ctx, w, req, http.StatusOK, obj)
	}
}
