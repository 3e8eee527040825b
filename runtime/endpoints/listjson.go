package endpoints

import (
	"bytes"
	"context"
	"net/http"
	"reflect"
	"strconv"
	"sync"

	"github.com/klauspost/compress/gzip"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apigen-dev/apigen/runtime/request"
)

// listWriteChunk is how many bytes writeListJSON gathers before each write.
const listWriteChunk = 32 << 10

// listFromEncodings turns writeListJSON on; tests turn it off to compare with the
// serializer's output.
var listFromEncodings = true

// unstructuredType is the interface of custom resources' objects, whose lists writeListJSON
// leaves to the serializer.
var unstructuredType = reflect.TypeFor[runtime.Unstructured]()

// listJSON is a plain-JSON list as writeListJSON writes it: the list up to its items, the
// items' JSON, and the end.
type listJSON struct {
	head  []byte   // ends with "items":[
	items [][]byte // each without its opening "{"
	size  int      // bytes of the whole body
}

// encodeListJSON assembles list (an internal list of typed objects, from storage) in the
// URL's version from the encodings of its items that the scope's encodingCache holds (the
// GET encodings, whose kind and apiVersion a list item drops), encoding and caching the
// others. ok is false for anything else (no items, items that are not structs, custom
// resources, an encoding of another shape): the caller encodes the list whole.
func (s *scope) encodeListJSON(list runtime.Object) (out listJSON, ok bool) {
	v := reflect.ValueOf(list)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return out, false
	}
	items := v.Elem().FieldByName("Items")
	if !items.IsValid() || items.Kind() != reflect.Slice || items.Len() == 0 ||
		items.Type().Elem().Kind() != reflect.Struct || reflect.PointerTo(items.Type().Elem()).Implements(unstructuredType) {
		return out, false
	}
	head := reflect.New(v.Elem().Type())
	head.Elem().Set(v.Elem())
	head.Elem().FieldByName("Items").Set(reflect.MakeSlice(items.Type(), 0, 0))
	data, err := s.encode(head.Interface().(runtime.Object), false)
	const emptyItems = `"items":[]}`
	if data = bytes.TrimSpace(data); err != nil || !bytes.HasSuffix(data, []byte(emptyItems)) {
		return out, false
	}
	out.head = data[:len(data)-len("]}")]
	typeMeta := []byte(`{"kind":"` + s.kind.Kind + `","apiVersion":"` + s.kind.GroupVersion().String() + `",`)
	out.items = make([][]byte, items.Len())
	out.size = len(out.head) + len("]}\n") + items.Len() - 1
	for i := range items.Len() {
		obj, isObj := items.Index(i).Addr().Interface().(runtime.Object)
		if !isObj {
			return out, false
		}
		data, err := s.objectJSON(obj, true)
		data = bytes.TrimSpace(data)
		if err != nil || !bytes.HasPrefix(data, typeMeta) {
			return out, false
		}
		// The item is the object without its kind and apiVersion: "{" and the rest.
		out.items[i] = data[len(typeMeta):]
		out.size += 1 + len(out.items[i])
	}
	return out, true
}

// writeTo writes the list to w: head, items separated by commas, "]}" and a newline, in
// writes of about listWriteChunk bytes.
func (l *listJSON) writeTo(w interface{ Write([]byte) (int, error) }) error {
	bp := listBuffers.Get().(*[]byte)
	defer listBuffers.Put(bp)
	buf := append((*bp)[:0], l.head...)
	for i, item := range l.items {
		if i > 0 {
			buf = append(buf, ',')
		}
		if len(buf)+len(item) > listWriteChunk && len(buf) > 0 {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
		buf = append(append(buf, '{'), item...)
	}
	buf = append(buf, "]}\n"...)
	_, err := w.Write(buf)
	if cap(buf) <= 2*listWriteChunk {
		*bp = buf[:0]
	}
	return err
}

// listBuffers recycles writeTo's buffers.
var listBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 2*listWriteChunk); return &b }}

// writeListJSON writes list, a plain-JSON list response, from the item encodings the scope
// caches (encodeListJSON), gzipped when the client accepts it and the body exceeds
// gzipThreshold; the gzipped body of a page is kept (pageCache) and written again for the
// same request (namespace and query) at the same list resourceVersion, whose content is the
// same. Either body goes out with its Content-Length (known before the first byte), not in
// HTTP/1.1 chunks. It reports false, having written nothing, when the list is not one it
// assembles.
func (s *scope) writeListJSON(ctx context.Context, w http.ResponseWriter, req *http.Request, list runtime.Object) bool {
	if !listFromEncodings {
		return false
	}
	gz := acceptsGzip(req)
	var key pageKey
	if gz {
		if l, err := meta.ListAccessor(list); err == nil && l.GetResourceVersion() != "" {
			key = pageKey{namespace: request.NamespaceValue(ctx), query: req.URL.RawQuery, resourceVersion: l.GetResourceVersion()}
			if data, ok := s.pages.get(key); ok {
				writeGzipped(w, data)
				return true
			}
		}
	}
	l, ok := s.encodeListJSON(list)
	if !ok {
		return false
	}
	if !gz || l.size <= gzipThreshold {
		h := w.Header()
		h.Set("Content-Type", mediaJSON)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Content-Length", strconv.Itoa(l.size))
		w.WriteHeader(http.StatusOK)
		_ = l.writeTo(w) // a client gone away: nothing more to do
		return true
	}
	var buf bytes.Buffer
	buf.Grow(l.size / 4)
	zw := gzipWriters.Get().(*gzip.Writer)
	zw.Reset(&buf)
	_ = l.writeTo(zw) // writes to a bytes.Buffer do not fail
	_ = zw.Close()
	zw.Reset(nil)
	gzipWriters.Put(zw)
	data := buf.Bytes()
	if key.resourceVersion != "" {
		s.pages.add(key, data)
	}
	writeGzipped(w, data)
	return true
}

// writeGzipped writes data, a gzipped JSON body, as 200 OK with its Content-Length.
func writeGzipped(w http.ResponseWriter, data []byte) {
	h := w.Header()
	h.Set("Content-Type", mediaJSON)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Length", strconv.Itoa(len(data)))
	setGzipHeaders(h)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(data) // a client gone away: nothing more to do
}
