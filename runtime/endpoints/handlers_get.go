package endpoints

import (
	"context"
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metainternalversionvalidation "k8s.io/apimachinery/pkg/apis/meta/internalversion/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apigen-dev/apigen/runtime/request"
	"github.com/apigen-dev/apigen/runtime/responsewriters"
	"github.com/apigen-dev/apigen/runtime/rest"
)

// get serves GET of one object (?resourceVersion), as kube's GetResource.
func (s *scope) get(getter rest.Getter) handlerFunc {
	return func(ctx context.Context, w http.ResponseWriter, req *http.Request, _, name string) {
		opts := &metav1.GetOptions{}
		if err := decodeQuery(req, opts); err != nil {
			responsewriters.WriteError(w, err)
			return
		}
		// The object is only encoded: storage may share it with its cache.
		obj, err := getter.Get(request.WithReadOnlyResults(ctx), name, opts)
		if err != nil {
			responsewriters.WriteError(w, err)
			return
		}
		out, err := negotiateOutput(req, false, s.tableConvertor() != nil)
		switch {
		case err != nil:
			responsewriters.WriteError(w, err)
		case out == (output{}): // plain JSON
			s.writeJSONCached(w, obj)
		default:
			s.writeOutput(ctx, w, req, http.StatusOK, obj, out)
		}
	}
}

// writeJSONCached writes obj, got from storage, as 200 OK in JSON in the URL's version,
// with the bytes written for the same object state before when the scope's encodingCache
// has them.
func (s *scope) writeJSONCached(w http.ResponseWriter, obj runtime.Object) {
	data, ok := s.encodings.get(obj)
	if !ok {
		var err error
		if data, err = s.encode(obj, false); err != nil {
			responsewriters.WriteError(w, err)
			return
		}
		s.encodings.add(obj, data)
	}
	responsewriters.WriteBody(w, http.StatusOK, mediaJSON, data)
}

// listOptions decodes a list's query parameters (labelSelector, fieldSelector, limit,
// continue, resourceVersion, resourceVersionMatch, timeoutSeconds, watch,
// allowWatchBookmarks, sendInitialEvents) and validates them, as kube-apiserver's list
// handler, for a watch when watch is set (a legacy /watch/ path) or the query asks for one.
// Errors: 400 for what does not decode; 422 Invalid (kind ListOptions) for what
// apimachinery's ValidateListOptions refuses (resourceVersionMatch without resourceVersion,
// Exact on a watch, sendInitialEvents without resourceVersionMatch=NotOlderThan or on a
// list, ...) and for a negative timeoutSeconds on a watch.
func listOptions(req *http.Request, watch bool) (*metainternalversion.ListOptions, error) {
	opts := &metainternalversion.ListOptions{}
	if err := decodeQuery(req, opts); err != nil {
		return nil, err
	}
	if opts.Limit < 0 {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("limit must be non-negative, got %d", opts.Limit))
	}
	opts.Watch = opts.Watch || watch
	// The WatchList feature (streaming lists) is served, as on by default since kube 1.34.
	errs := metainternalversionvalidation.ValidateListOptions(opts, true)
	if opts.Watch && opts.TimeoutSeconds != nil && *opts.TimeoutSeconds < 0 {
		// kube-apiserver would end such a watch at once; a negative duration is a mistake.
		errs = append(errs, field.Invalid(field.NewPath("timeoutSeconds"), *opts.TimeoutSeconds, "must be greater than or equal to 0"))
	}
	if len(errs) > 0 {
		return nil, apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: "ListOptions"}, "", errs)
	}
	return opts, nil
}

// list serves LIST, or WATCH when ?watch=true, as kube's ListResource.
func (s *scope) list(lister rest.Lister, watcher rest.Watcher) handlerFunc {
	return func(ctx context.Context, w http.ResponseWriter, req *http.Request, _, _ string) {
		opts, err := listOptions(req, false)
		if err != nil {
			responsewriters.WriteError(w, err)
			return
		}
		if opts.Watch {
			if watcher == nil {
				responsewriters.WriteError(w, apierrors.NewMethodNotSupported(s.qualified, "watch"))
				return
			}
			s.serveWatch(ctx, w, req, watcher, opts)
			return
		}
		if opts.Limit == 0 {
			if out, err := negotiateOutput(req, true, s.tableConvertor() != nil); err == nil && out == (output{}) {
				s.listWhole(ctx, w, req, lister, opts)
				return
			}
		}
		// The list is only encoded: storage may share its items with its cache.
		obj, err := lister.List(request.WithReadOnlyResults(ctx), opts)
		if err != nil {
			responsewriters.WriteError(w, err)
			return
		}
		if out, err := negotiateOutput(req, true, s.tableConvertor() != nil); err == nil && out == (output{}) && s.writeListJSON(ctx, w, req, obj) {
			return
		}
		s.writeObject(ctx, w, req, http.StatusOK, obj)
	}
}

// legacyWatch serves the deprecated /watch/ paths: a list's, or one object's when the path
// names it (a metadata.name field selector).
func (s *scope) legacyWatch(watcher rest.Watcher) handlerFunc {
	return func(ctx context.Context, w http.ResponseWriter, req *http.Request, _, name string) {
		opts, err := listOptions(req, true)
		if err != nil {
			responsewriters.WriteError(w, err)
			return
		}
		if name != "" {
			nameSelector := fields.OneTermEqualSelector("metadata.name", name)
			if opts.FieldSelector == nil || opts.FieldSelector.Empty() {
				opts.FieldSelector = nameSelector
			} else {
				opts.FieldSelector = fields.AndSelectors(opts.FieldSelector, nameSelector)
			}
		}
		s.serveWatch(ctx, w, req, watcher, opts)
	}
}
