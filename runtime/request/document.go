package request

import (
	"context"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Document is the JSON document of the object a write request carries, as the client wrote
// it: the body of a create or an update, or the result of applying a patch to the stored
// object, in the request's wire version. The decoded Go object cannot tell a key the client
// left out from one it sent with a zero value; a CRD's "required" (the key is present) and its
// validation of present zero values ("" against minLength) need that, so validation asks the
// document (runtime/validation.KeyPresent).
//
// A Document is safe for concurrent use. Its zero value holds no document. A patch, applied
// anew on each attempt of the storage's read-modify-write, replaces the document with Set.
type Document struct {
	mu   sync.Mutex
	gvk  schema.GroupVersionKind
	data []byte
}

// NewDocument returns a Document holding data (JSON, not copied: the caller must not change
// it afterwards), an object of kind gvk.
func NewDocument(gvk schema.GroupVersionKind, data []byte) *Document {
	return &Document{gvk: gvk, data: data}
}

// Set replaces the document with data, an object of kind gvk (not copied).
func (d *Document) Set(gvk schema.GroupVersionKind, data []byte) {
	d.mu.Lock()
	d.gvk, d.data = gvk, data
	d.mu.Unlock()
}

// For returns the document's JSON when it is an object of kind gvk, else nil: a document in
// another version or of another kind (a /scale request's autoscaling/v1 Scale) says nothing
// about the object being validated.
func (d *Document) For(gvk schema.GroupVersionKind) []byte {
	if d == nil {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.gvk != gvk {
		return nil
	}
	return d.data
}

// WithDocument returns a copy of ctx carrying d (nil: no document).
func WithDocument(ctx context.Context, d *Document) context.Context {
	return context.WithValue(ctx, documentKey, d)
}

// DocumentFrom returns the Document ctx carries, or nil.
func DocumentFrom(ctx context.Context) *Document {
	d, _ := ctx.Value(documentKey).(*Document)
	return d
}
