package memory

import (
	"context"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/conversion"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apigen-dev/apigen/runtime/storage"
)

// Kubernetes' wording for expired reads, as etcd3's store words them.
const (
	listExpiredMessage          = "The resourceVersion for the provided list is too old."
	watchExpiredMessage         = "The resourceVersion for the provided watch is too old."
	continueExpiredMessage      = "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter."
	inconsistentContinueMessage = "The provided continue parameter is too old to display a consistent list result. " +
		"You can start a new list without the continue parameter, or use the continue token in this response to " +
		"retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - " +
		"objects that were created, modified, or deleted between the time the first chunk was returned and now may " +
		"show up in the list."
)

// keyRange returns the keys a list or watch of key covers: [from, end).
func keyRange(key string, recursive bool) (prefix, from, end string) {
	if !recursive {
		return key, key, key + "\x00"
	}
	if !strings.HasSuffix(key, "/") {
		key += "/"
	}
	b := []byte(key)
	b[len(b)-1]++
	return key, key, string(b)
}

// GetList implements storage.Interface, at the latest revision or, for an exact
// resourceVersion, a paged list's resourceVersion or a continue token, at that revision.
func (s *Store) GetList(_ context.Context, key string, opts storage.ListOptions, listObj runtime.Object) error {
	k, err := s.cleanKey(key)
	if err != nil {
		return err
	}
	ptr, err := meta.GetItemsPtr(listObj)
	if err != nil {
		return storage.NewInternalError(fmt.Sprintf("cannot list into %T: %v", listObj, err))
	}
	items, err := conversion.EnforcePtr(ptr)
	if err != nil || items.Kind() != reflect.Slice {
		return storage.NewInternalError(fmt.Sprintf("cannot list into %T: Items is not a slice", listObj))
	}
	items.Set(reflect.MakeSlice(items.Type(), 0, 0))
	prefix, from, end := keyRange(k, opts.Recursive)
	var rev, minRV int64
	continued := false
	if opts.Recursive && opts.Predicate.Continue != "" {
		if opts.ResourceVersion != "" && opts.ResourceVersion != "0" {
			return storage.NewInvalidObjError(key, "specifying resource version is not allowed when using continue")
		}
		if from, rev, err = storage.DecodeContinue(opts.Predicate.Continue, prefix); err != nil {
			return err
		}
		rev, continued = max(rev, 0), true
	} else if opts.ResourceVersion != "" {
		n, err := strconv.ParseInt(opts.ResourceVersion, 10, 64)
		if err != nil || n < 0 {
			return storage.NewInvalidObjError(key, fmt.Sprintf("invalid resource version %q", opts.ResourceVersion))
		}
		switch opts.ResourceVersionMatch {
		case metav1.ResourceVersionMatchExact:
			rev = n
		case "":
			if opts.Predicate.Limit > 0 {
				rev = n
			} else {
				minRV = n
			}
		case metav1.ResourceVersionMatchNotOlderThan:
			minRV = n
		default:
			return storage.NewInvalidObjError(key, fmt.Sprintf("unknown ResourceVersionMatch value: %v", opts.ResourceVersionMatch))
		}
	}

	s.mu.Lock()
	switch {
	case minRV > s.rev:
		current := s.rev
		s.mu.Unlock()
		return storage.NewResourceVersionTooLargeError(minRV, current)
	case rev == 0:
		rev = s.rev
	case rev < s.compacted:
		s.mu.Unlock()
		if continued {
			token, err := storage.EncodeContinue(from, prefix, -1)
			if err != nil {
				return storage.NewExpiredError(rev, continueExpiredMessage)
			}
			return storage.NewInconsistentContinueError(token, inconsistentContinueMessage)
		}
		return storage.NewExpiredError(rev, listExpiredMessage)
	case rev > s.rev:
		current := s.rev
		s.mu.Unlock()
		return storage.NewResourceVersionTooLargeError(rev, current)
	}
	keys, state := s.stateAt(from, end, rev)
	s.mu.Unlock()

	pred, next := opts.Predicate, ""
	var remaining *int64
	for i, key := range keys {
		if pred.Limit > 0 && int64(items.Len()) >= pred.Limit {
			next = keys[i-1] + "\x00"
			if pred.Empty() {
				n := int64(len(keys) - i)
				remaining = &n
			}
			break
		}
		obj, err := s.decode(state[key].data, state[key].rev)
		if err != nil {
			return err
		}
		if ok, err := pred.Matches(obj); err != nil {
			return err
		} else if ok {
			if err := appendItem(items, obj); err != nil {
				return err
			}
		}
	}
	acc, err := meta.ListAccessor(listObj)
	if err != nil {
		return storage.NewInternalError(fmt.Sprintf("cannot list into %T: %v", listObj, err))
	}
	acc.SetResourceVersion(strconv.FormatInt(rev, 10))
	acc.SetContinue("")
	acc.SetRemainingItemCount(nil)
	if next != "" {
		token, err := storage.EncodeContinue(next, prefix, rev)
		if err != nil {
			return err
		}
		acc.SetContinue(token)
		acc.SetRemainingItemCount(remaining)
	}
	return nil
}

// appendItem appends obj (a pointer) to items, a slice of structs, pointers or interfaces.
func appendItem(items reflect.Value, obj runtime.Object) error {
	ov, elem := reflect.ValueOf(obj), items.Type().Elem()
	switch {
	case ov.Type().AssignableTo(elem):
	case ov.Kind() == reflect.Pointer && ov.Elem().Type().AssignableTo(elem):
		ov = ov.Elem()
	default:
		return storage.NewInternalError(fmt.Sprintf("cannot append %T to a list of %v", obj, elem))
	}
	items.Set(reflect.Append(items, ov))
	return nil
}
