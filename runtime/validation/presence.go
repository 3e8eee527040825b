package validation

import (
	"context"
	"reflect"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apigen-dev/apigen/runtime/jsoncodec"
	"github.com/apigen-dev/apigen/runtime/request"
)

// validatedDocumentKey carries, during Declarative, the request's document when it is an
// object of the kind and version being validated.
type validatedDocumentKey struct{}

// withValidatedDocument returns ctx carrying the request's document (request.DocumentFrom)
// when it is an object of gvk, the kind and version Declarative validates, and no document
// otherwise.
func withValidatedDocument(ctx context.Context, gvk schema.GroupVersionKind) context.Context {
	return context.WithValue(ctx, validatedDocumentKey{}, request.DocumentFrom(ctx).For(gvk))
}

// KeyPresent reports whether the object being validated has the JSON key at fldPath (a path
// of JSON names and indices, as the generated validation builds them: spec.rules[2].name),
// as an API server validating a custom resource sees it. The generated validation asks only
// for a value that is zero in the decoded Go object, which cannot tell a key the client left
// out from one it sent as "", 0, false or {}:
//
//   - when the request carries a document of the validated kind and version (the body of a
//     create or an update, a patch's result; see request.Document), the answer is whether the
//     key is there with a value other than null (the API server prunes nulls of fields that
//     are not nullable before it validates);
//   - otherwise (a server-side apply, whose result is no document the client wrote, or a
//     write from inside the server), written: whether encoding/json writes the key for the
//     zero value (false for omitempty scalars and omitzero fields), as a stored object shows.
//
// A path the document does not lead through (an index past a list's end, a value that is no
// object) answers written too.
func KeyPresent(ctx context.Context, fldPath *field.Path, written bool) bool {
	data, _ := ctx.Value(validatedDocumentKey{}).([]byte)
	if data == nil {
		return written
	}
	present, ok := lookupKey(data, pathElements(fldPath.String()))
	if !ok {
		return written
	}
	return present
}

// WithoutDocument returns ctx without the request's document: KeyPresent answers what the
// object's JSON encoding writes. The generated validation uses it for an optional struct the
// request left out, which a Go object still holds and stores (its zero value, and defaults),
// so that it is validated as it will be stored.
func WithoutDocument(ctx context.Context) context.Context {
	return context.WithValue(ctx, validatedDocumentKey{}, []byte(nil))
}

// IsZero reports whether *v is its type's zero value, as encoding/json's omitzero sees it
// (reflect.Value.IsZero): the test the generated validation makes before asking KeyPresent
// about a struct value.
func IsZero[T any](v *T) bool { return reflect.ValueOf(v).Elem().IsZero() }

// pathElements splits a field path's string form (spec.rules[2].matches[0], data[a.b]) into its
// names, indices and keys; a bracketed element keeps its brackets ("[2]", "[a.b]") and ends at
// the "]" followed by ".", "[" or the end.
func pathElements(path string) []string {
	var out []string
	for i := 0; i < len(path); {
		switch path[i] {
		case '.':
			i++
		case '[':
			end := i + 1
			for end < len(path) && !(path[end] == ']' && (end+1 == len(path) || path[end+1] == '.' || path[end+1] == '[')) {
				end++
			}
			out = append(out, path[i:min(end+1, len(path))])
			i = end + 1
		default:
			end := i
			for end < len(path) && path[end] != '.' && path[end] != '[' {
				end++
			}
			out = append(out, path[i:end])
			i = end
		}
	}
	return out
}

// lookupKey follows elems from the document's root and reports whether the last one names a
// value other than null (a null or missing key on the way: not present); ok is false when the
// document does not lead there (malformed JSON, an index past a list's end, a value of another
// JSON type than the path expects).
func lookupKey(data []byte, elems []string) (present, ok bool) {
	r := jsoncodec.NewReader(data)
	for _, e := range elems {
		var found bool
		switch r.Peek() {
		case 'n':
			return false, true
		case '{':
			found = seekMember(r, strings.TrimSuffix(strings.TrimPrefix(e, "["), "]"))
			if !found && !r.Failed() {
				return false, true
			}
		case '[':
			i, isIndex := index(e)
			found = isIndex && seekElem(r, i)
		}
		if !found || r.Failed() {
			return false, false
		}
	}
	return r.Peek() != 'n', true
}

// seekMember moves r, at an object, to the value of its member key; false when there is none.
func seekMember(r *jsoncodec.Reader, key string) bool {
	r.Object()
	for n := 0; r.Member(n); n++ {
		if string(r.Key()) == key {
			return true
		}
		r.Raw()
	}
	return false
}

// seekElem moves r, at an array, to its element i; false when the array is shorter.
func seekElem(r *jsoncodec.Reader, i int) bool {
	r.Array()
	for n := 0; r.Elem(n); n++ {
		if n == i {
			return true
		}
		r.Raw()
	}
	return false
}

// index parses a bracketed element "[2]" as an index.
func index(e string) (int, bool) {
	if !strings.HasPrefix(e, "[") || !strings.HasSuffix(e, "]") {
		return 0, false
	}
	n, err := strconv.Atoi(e[1 : len(e)-1])
	return n, err == nil && n >= 0
}
