package endpoints

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"reflect"

	"k8s.io/apimachinery/pkg/api/meta"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apigen-dev/apigen/runtime/request"
	"github.com/apigen-dev/apigen/runtime/responsewriters"
	"github.com/apigen-dev/apigen/runtime/rest"
)

// listPageSize is how many items a list the client did not page (no limit) is read from
// storage at a time: about 500 KiB of ~1 KiB objects, kubectl's own page size. A request
// holds one page at a time, so a client that reads a list of many MiB slowly, or not at all,
// holds a page's worth of memory rather than the whole list.
var listPageSize int64 = 500

// listWhole serves a LIST without a limit in plain JSON as the bytes of one list read at one
// revision (the first page's; later pages continue at it), read and written listPageSize
// items at a time (each page's items spliced from their cached encodings where the list
// assembles, see writePage), gzipped past gzipThreshold for a client that accepts it. A list
// that fits in one page is written as any list is (writeListJSON). The response's metadata
// is the whole list's: the first page's resourceVersion, no continue token, no remaining
// count. An error before the first byte is a metav1.Status; one after it (e.g. the revision
// compacted between pages) aborts the response, so the client sees a broken stream rather
// than a short list.
func (s *scope) listWhole(ctx context.Context, w http.ResponseWriter, req *http.Request, lister rest.Lister,
	opts *metainternalversion.ListOptions) {
	pageOpts := *opts
	pageOpts.Limit = listPageSize
	if opts.ResourceVersion != "" && opts.ResourceVersionMatch == "" {
		// Unpaged, resourceVersion N means "not older than N"; paged without a match it
		// would mean exactly N. And "0" (any state: a client-go informer's first list)
		// would be read whole by the watch cache, which ignores a limit at "0" as kube's
		// does: every item at once, where "not older than 0" reads page by page.
		pageOpts.ResourceVersionMatch = metav1.ResourceVersionMatchNotOlderThan
	}
	page, err := lister.List(request.WithReadOnlyResults(ctx), &pageOpts)
	if err != nil {
		responsewriters.WriteError(w, err)
		return
	}
	acc, err := meta.ListAccessor(page)
	if err != nil || acc.GetContinue() == "" {
		if !s.writeListJSON(ctx, w, req, page) {
			s.writeObject(ctx, w, req, http.StatusOK, page)
		}
		return
	}
	// Gzipped past gzipThreshold for a client that accepts it, as any response.
	dw := &deferredWriter{w: w, code: http.StatusOK, gzip: acceptsGzip(req)}
	pw, err := s.newPageWriter(dw, page)
	if err != nil {
		s.writeObject(ctx, w, req, http.StatusOK, page) // an encoding the pages cannot be joined in
		return
	}
	w.Header().Set("Content-Type", mediaJSON)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	for {
		next := acc.GetContinue()
		if err := pw.writePage(page); err != nil {
			abortList(err)
		}
		if next == "" {
			if err := pw.finish(); err != nil {
				abortList(err)
			}
			if err := dw.Close(); err != nil {
				abortList(err)
			}
			return
		}
		pageOpts = metainternalversion.ListOptions{LabelSelector: opts.LabelSelector, FieldSelector: opts.FieldSelector,
			Limit: listPageSize, Continue: next}
		if page, err = lister.List(request.WithReadOnlyResults(ctx), &pageOpts); err != nil {
			abortList(err)
		}
		if acc, err = meta.ListAccessor(page); err != nil {
			abortList(err)
		}
	}
}

// abortList ends a list response that has started: the connection is aborted (net/http's
// http.ErrAbortHandler), as kube-apiserver's timeout filter ends a response cut short.
func abortList(err error) {
	slog.Debug("list response aborted", "err", err)
	panic(http.ErrAbortHandler)
}

// pageWriter writes the encodings of a list's pages as one list: the head (the list up to
// its items, e.g. `{"kind":"WidgetList",...,"items":[`) once, every page's items joined by
// commas, and the tail (`]}` and a newline) once at the end. Every page's encoding must be
// head, items, tail: pages share the resourceVersion of the first, and continue and the
// remaining count are cleared on each.
type pageWriter struct {
	s          *scope
	w          io.Writer
	head, tail []byte
	started    bool // the head has been written
	items      bool // an item has been written
}

// newPageWriter finds the head and tail of first's encoding by encoding first without items.
// Errors: the encoding does not put the items in one place a page can be cut at.
func (s *scope) newPageWriter(w io.Writer, first runtime.Object) (*pageWriter, error) {
	empty := shallowList(first)
	if err := clearPaging(empty); err != nil {
		return nil, err
	}
	if err := meta.SetList(empty, nil); err != nil {
		return nil, err
	}
	data, err := s.encode(empty, false)
	if err != nil {
		return nil, err
	}
	const itemsKey = `"items":[`
	i := bytes.LastIndex(data, []byte(itemsKey))
	if i < 0 || bytes.Count(data, []byte(itemsKey)) != 1 || !bytes.HasPrefix(data[i+len(itemsKey):], []byte("]")) {
		return nil, fmt.Errorf("cannot split the list encoding %.100q at its items", data)
	}
	end := i + len(itemsKey)
	return &pageWriter{s: s, w: w, head: data[:end], tail: data[end:]}, nil
}

// shallowList returns a copy of list whose items (and the rest) may still be shared with
// list, to be given new items and paging (setting them leaves list as it is): a copy of the
// struct for a typed list, which copies no item, else a deep copy.
func shallowList(list runtime.Object) runtime.Object {
	v := reflect.ValueOf(list)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return list.DeepCopyObject()
	}
	out := reflect.New(v.Elem().Type())
	out.Elem().Set(v.Elem())
	if obj, ok := out.Interface().(runtime.Object); ok {
		return obj
	}
	return list.DeepCopyObject()
}

// clearPaging removes a page's continue token and remaining item count.
func clearPaging(list runtime.Object) error {
	acc, err := meta.ListAccessor(list)
	if err != nil {
		return err
	}
	acc.SetContinue("")
	acc.SetRemainingItemCount(nil)
	return nil
}

// writePage writes page's items into the response, after the head for the first page; the
// tail is left for finish. The items are spliced from their cached encodings (encodeListJSON)
// when the list is one that assembles, else page is encoded and cut at its head and tail.
// Errors: the page's encoding is not head, items, tail (the response is then broken), or
// writing fails.
func (p *pageWriter) writePage(page runtime.Object) error {
	if err := clearPaging(page); err != nil {
		return err
	}
	hasItems := meta.LenList(page) > 0
	if listFromEncodings && hasItems {
		if l, ok := p.s.encodeListJSON(page); ok {
			return p.writeItems(l.items)
		}
	}
	cut := &pageCutter{w: p.w, head: p.head, tail: p.tail, writeHead: !p.started}
	if hasItems && p.items {
		cut.sep = []byte(",")
	}
	gv := p.s.kind.GroupVersion()
	if err := p.s.encoderForVersion(false, gv).Encode(page, cut); err != nil {
		return err
	}
	if err := cut.finish(); err != nil {
		return err
	}
	p.started, p.items = true, p.items || hasItems
	return nil
}

// writeItems writes items, encoded list items without their opening "{", joined by commas
// (and after one if items were written before), after the head for the first page.
func (p *pageWriter) writeItems(items [][]byte) error {
	bp := listBuffers.Get().(*[]byte)
	defer listBuffers.Put(bp)
	buf := (*bp)[:0]
	if !p.started {
		buf = append(buf, p.head...)
	}
	for i, item := range items {
		if i > 0 || p.items {
			buf = append(buf, ',')
		}
		if len(buf)+len(item) > listWriteChunk && len(buf) > 0 {
			if _, err := p.w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
		buf = append(append(buf, '{'), item...)
	}
	_, err := p.w.Write(buf)
	if cap(buf) <= 2*listWriteChunk {
		*bp = buf[:0]
	}
	p.started, p.items = true, true
	return err
}

// errPageShape reports a page whose encoding is not the head, items and tail of the first.
var errPageShape = errors.New("a list page's encoding does not match the first page's head and tail")

// pageCutter passes one page's items through to w: it checks and drops the head (writing it
// when writeHead, the first page), writes sep before the first item, and holds back the last
// len(tail) bytes, which finish checks and drops.
type pageCutter struct {
	w          io.Writer
	head, tail []byte
	sep        []byte
	writeHead  bool
	seen       int    // bytes of the head seen so far
	held       []byte // the last bytes, possibly the tail
	wroteItems bool
}

func (c *pageCutter) Write(p []byte) (int, error) {
	n := len(p)
	if c.seen < len(c.head) {
		k := min(len(p), len(c.head)-c.seen)
		if !bytes.Equal(p[:k], c.head[c.seen:c.seen+k]) {
			return 0, errPageShape
		}
		if c.writeHead {
			if _, err := c.w.Write(p[:k]); err != nil {
				return 0, err
			}
		}
		c.seen += k
		p = p[k:]
	}
	c.held = append(c.held, p...)
	if over := len(c.held) - len(c.tail); over > 0 {
		if !c.wroteItems && len(c.sep) > 0 {
			if _, err := c.w.Write(c.sep); err != nil {
				return 0, err
			}
		}
		c.wroteItems = true
		if _, err := c.w.Write(c.held[:over]); err != nil {
			return 0, err
		}
		c.held = append(c.held[:0], c.held[over:]...)
	}
	return n, nil
}

// finish checks that the page ended with the tail.
func (c *pageCutter) finish() error {
	if c.seen < len(c.head) || !bytes.Equal(c.held, c.tail) {
		return errPageShape
	}
	return nil
}

// finish writes the list's tail after the last page.
func (p *pageWriter) finish() error {
	_, err := p.w.Write(p.tail)
	return err
}
