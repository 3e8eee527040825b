package endpoints

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"sync"

	"github.com/klauspost/compress/gzip"

	"github.com/apigen-dev/apigen/runtime/responsewriters"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// writeObject writes obj, an internal object or list, with code in the format the request's
// Accept header asks for: the URL's version as JSON or YAML, a Table, or partial metadata.
// A nil obj is written as a Success Status.
func (s *scope) writeObject(ctx context.Context, w http.ResponseWriter, req *http.Request, code int, obj runtime.Object) {
	if obj == nil {
		responsewriters.WriteStatus(w, &metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
			Status: metav1.StatusSuccess, Code: int32(code)})
		return
	}
	out, err := negotiateOutput(req, meta.IsListType(obj), s.tableConvertor() != nil)
	if err != nil {
		responsewriters.WriteError(w, err)
		return
	}
	s.writeOutput(ctx, w, req, code, obj, out)
}

// writeOutput writes obj with code in the negotiated format out.
func (s *scope) writeOutput(ctx context.Context, w http.ResponseWriter, req *http.Request, code int, obj runtime.Object, out output) {
	contentType := mediaJSON
	if out.yaml {
		contentType = mediaYAML
	}
	if out.as == "" {
		s.streamObject(w, req, code, contentType, obj, out.yaml)
		return
	}
	data, err := s.encodeOutput(ctx, req, out, obj)
	if err != nil {
		responsewriters.WriteError(w, err)
		return
	}
	responsewriters.WriteBody(w, code, contentType, data)
}

// streamObject encodes obj in the URL's version straight into w, as kube-apiserver's
// SerializeObject does, without a copy of the whole body (a list page is hundreds of KiB):
// the status line goes out with the first byte of the body, so an error before it (e.g. a
// failed conversion) is still written as a metav1.Status; one after it can only end the
// response early, and is logged. A body of more than gzipThreshold bytes is gzipped for a
// client that accepts it (the first gzipThreshold bytes are held back until it is known).
func (s *scope) streamObject(w http.ResponseWriter, req *http.Request, code int, contentType string, obj runtime.Object, yaml bool) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	dw := &deferredWriter{w: w, code: code, gzip: acceptsGzip(req)}
	gv := s.kind.GroupVersion()
	err := s.encoderForVersion(yaml, gv).Encode(obj, dw)
	if _, isStatus := err.(apierrors.APIStatus); isStatus && !dw.started {
		w.Header().Del("X-Content-Type-Options")
		responsewriters.WriteError(w, err) // a convertor's own Status (a failed conversion webhook's 500)
		return
	}
	if err != nil && !dw.started {
		w.Header().Del("X-Content-Type-Options")
		responsewriters.WriteError(w, apierrors.NewInternalError(fmt.Errorf("cannot encode the response as %s: %w", gv, err)))
		return
	}
	if cerr := dw.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		slog.Error("response cut short", "err", fmt.Errorf("cannot encode the response as %s: %w", gv, err))
	}
}

// deferredWriter writes code as the status on its first write to w. With gzip (the client
// accepts it) it holds the first gzipThreshold bytes back, then gzips the body when it is
// longer; Close writes what is held back, or ends the gzip stream.
type deferredWriter struct {
	w       http.ResponseWriter
	code    int
	gzip    bool
	held    []byte
	hold    *[]byte // held's buffer from heldBuffers, nil when none is held
	gw      *gzip.Writer
	started bool
}

func (d *deferredWriter) Write(p []byte) (int, error) {
	switch {
	case d.gw != nil:
		return d.gw.Write(p)
	case d.started:
		return d.w.Write(p)
	case d.gzip && len(d.held)+len(p) <= gzipThreshold:
		if d.held == nil {
			d.hold = heldBuffers.Get().(*[]byte)
			d.held = (*d.hold)[:0]
		}
		d.held = append(d.held, p...)
		return len(p), nil
	case d.gzip:
		setGzipHeaders(d.w.Header())
		d.start()
		d.gw = gzipWriters.Get().(*gzip.Writer)
		d.gw.Reset(d.w)
		_, err := d.gw.Write(d.held)
		d.release()
		if err != nil {
			return 0, err
		}
		return d.gw.Write(p)
	}
	d.start()
	return d.w.Write(p)
}

// start writes the status line.
func (d *deferredWriter) start() {
	d.started = true
	d.w.WriteHeader(d.code)
}

// Close writes the held-back body (with its Content-Length), or ends the gzip stream; a
// response with no body gets its status line.
func (d *deferredWriter) Close() error {
	if d.gw != nil {
		err := d.gw.Close()
		d.gw.Reset(nil)
		gzipWriters.Put(d.gw)
		d.gw = nil
		return err
	}
	if !d.started {
		if len(d.held) > 0 {
			d.w.Header().Set("Content-Length", strconv.Itoa(len(d.held)))
		}
		d.start()
		if len(d.held) > 0 {
			_, err := d.w.Write(d.held)
			d.release()
			return err
		}
	}
	d.release()
	return nil
}

// heldBuffers recycles the buffers deferredWriters hold bodies in (a write's response, a
// get's object: one allocation of the body's size each, before).
var heldBuffers = sync.Pool{New: func() any { return new([]byte) }}

// maxHeldBuffer is the largest held buffer kept for reuse.
const maxHeldBuffer = 64 << 10

// release returns the held buffer to heldBuffers (what it held has been written: a writer
// does not keep what it is given).
func (d *deferredWriter) release() {
	if d.hold == nil {
		return
	}
	if cap(d.held) <= maxHeldBuffer {
		*d.hold = d.held[:0]
		heldBuffers.Put(d.hold)
	}
	d.hold, d.held = nil, nil
}

// encodeOutput renders obj in the negotiated format.
func (s *scope) encodeOutput(ctx context.Context, req *http.Request, out output, obj runtime.Object) ([]byte, error) {
	switch out.as {
	case asTable:
		return s.encodeTable(ctx, req, obj, out.metaVersion)
	case asPartialObjectMetadata, asPartialObjectMetadataList:
		return encodePartial(obj, out.metaVersion)
	case "":
		return s.encode(obj, out.yaml)
	}
	return nil, fmt.Errorf("cannot render as %q", out.as)
}

// encode converts obj to the wire version (the URL's, or a foreign kind's) and encodes it
// as JSON, or with yaml as YAML.
func (s *scope) encode(obj runtime.Object, yaml bool) ([]byte, error) {
	var buf bytes.Buffer
	gv := s.kind.GroupVersion()
	if err := s.encoderForVersion(yaml, gv).Encode(obj, &buf); err != nil {
		if _, isStatus := err.(apierrors.APIStatus); isStatus {
			return nil, err // a convertor's own Status (a failed conversion webhook's 500)
		}
		return nil, apierrors.NewInternalError(fmt.Errorf("cannot encode the response as %s: %w", gv, err))
	}
	return buf.Bytes(), nil
}

// tableOptions reads ?includeObject=None|Metadata|Object (default Metadata).
func tableOptions(req *http.Request) (*metav1.TableOptions, error) {
	opts := &metav1.TableOptions{IncludeObject: metav1.IncludeObjectPolicy(req.URL.Query().Get("includeObject"))}
	switch opts.IncludeObject {
	case "":
		opts.IncludeObject = metav1.IncludeMetadata
	case metav1.IncludeNone, metav1.IncludeMetadata, metav1.IncludeObject:
	default:
		return nil, apierrors.NewBadRequest(fmt.Sprintf("includeObject: unsupported value %q: must be one of None, Metadata, Object",
			opts.IncludeObject))
	}
	return opts, nil
}

// encodeTable renders obj as a meta.k8s.io/<version> Table, each row's object narrowed per
// includeObject, as kube's transformResponseObject. The table convertor gets obj in the wire
// version, as the client sees it: printer columns are JSON paths of the served versions,
// which a hub type need not share (its fields may carry no json tags at all).
func (s *scope) encodeTable(ctx context.Context, req *http.Request, obj runtime.Object, version string) ([]byte, error) {
	opts, err := tableOptions(req)
	if err != nil {
		return nil, err
	}
	wire, err := s.Convertor.ConvertToVersion(obj, s.kind.GroupVersion())
	if _, isStatus := err.(apierrors.APIStatus); isStatus {
		return nil, err
	}
	if err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("cannot convert to %s for a table: %w", s.kind.GroupVersion(), err))
	}
	table, err := s.tableConvertor().ConvertToTable(ctx, wire, opts)
	if err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("cannot convert to a table: %w", err))
	}
	for i := range table.Rows {
		if table.Rows[i].Object, err = s.rowObject(table.Rows[i].Object.Object, opts.IncludeObject); err != nil {
			return nil, err
		}
	}
	table.Kind, table.APIVersion = "Table", "meta.k8s.io/"+version
	return json.Marshal(table)
}

// rowObject is what a table row carries: nothing, the object's PartialObjectMetadata, or
// the object in the URL's version.
func (s *scope) rowObject(obj runtime.Object, include metav1.IncludeObjectPolicy) (runtime.RawExtension, error) {
	if obj == nil || include == metav1.IncludeNone {
		return runtime.RawExtension{}, nil
	}
	if include == metav1.IncludeObject {
		raw, err := s.encode(obj, false)
		return runtime.RawExtension{Raw: bytes.TrimSpace(raw)}, err
	}
	raw, err := encodePartial(obj, "v1")
	return runtime.RawExtension{Raw: raw}, err
}

// encodePartial renders obj's metadata as meta.k8s.io/<version> PartialObjectMetadata, or a
// list's as PartialObjectMetadataList.
func encodePartial(obj runtime.Object, version string) ([]byte, error) {
	gv := "meta.k8s.io/" + version
	if !meta.IsListType(obj) {
		m, err := meta.Accessor(obj)
		if err != nil {
			return nil, apierrors.NewInternalError(fmt.Errorf("cannot read the object's metadata: %w", err))
		}
		partial := meta.AsPartialObjectMetadata(m)
		partial.Kind, partial.APIVersion = asPartialObjectMetadata, gv
		return json.Marshal(partial)
	}
	list := &metav1.PartialObjectMetadataList{TypeMeta: metav1.TypeMeta{Kind: asPartialObjectMetadataList, APIVersion: gv}}
	if l, err := meta.ListAccessor(obj); err == nil {
		list.ResourceVersion, list.Continue, list.RemainingItemCount = l.GetResourceVersion(), l.GetContinue(), l.GetRemainingItemCount()
	}
	err := meta.EachListItem(obj, func(item runtime.Object) error {
		m, err := meta.Accessor(item)
		if err != nil {
			return err
		}
		p := meta.AsPartialObjectMetadata(m)
		p.Kind, p.APIVersion = asPartialObjectMetadata, gv
		list.Items = append(list.Items, *p)
		return nil
	})
	if err != nil {
		return nil, apierrors.NewInternalError(fmt.Errorf("cannot read the list's metadata: %w", err))
	}
	return json.Marshal(list)
}
