package etcd3

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/conversion"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apigen-dev/apigen/runtime/storage"
)

// maxFilteredReadLimit caps how many keys one etcd read fetches while a filtered, paged list
// looks for enough matches (kube-apiserver's maxLimit).
const maxFilteredReadLimit = 10000

// listChunk is the fewest keys one etcd read of an unfiltered page fetches (pageChunk): a
// page of 500 ~1 KiB objects takes four reads at one revision, so a list holds a quarter of
// the page's etcd response at a time (64 concurrent such lists: ~20 MiB of responses rather
// than ~80).
const listChunk = 128

// pageChunk is how many keys one etcd read of an unfiltered page of limit keys fetches: a
// quarter of the page, at least listChunk. Not a fixed listChunk: etcd's Range counts every
// key left in the range, whatever its limit, so a read costs as much as the rest of the
// list; reading the watch cache's pages of 10,000 in chunks of 128 made a list of 100,000
// objects visit about 39 million keys in etcd's index (5 s of CPU on two cores), and one of
// N objects about N²/256.
func pageChunk(limit int64) int64 { return max(listChunk, limit/4) }

// listPlan is where and how a GetList reads.
type listPlan struct {
	keyPrefix string // the etcd key (or key prefix, ending in "/") listed
	fromKey   string // the first key to read
	withRev   int64  // the revision to read at; 0 = the latest
	minRV     int64  // the latest read must be at least this new (NotOlderThan); 0 = any
	anyRV     bool   // resourceVersion "0": a serializable read will do
	continued bool   // fromKey and withRev come from a continue token
}

// GetList implements storage.Interface, as kube-apiserver's etcd3 store.GetList: every page
// of a paged list reads at the revision of the first page, and a filtered page keeps reading
// until it holds Predicate.Limit matches or the keys run out.
func (s *store) GetList(ctx context.Context, key string, opts storage.ListOptions, listObj runtime.Object) (err error) {
	ctx, span := s.startSpan(ctx, "List etcd3", key)
	defer func() { span.End(err) }()
	items, err := itemsValue(listObj)
	if err != nil {
		return err
	}
	plan, err := s.planList(key, opts)
	if err != nil {
		return err
	}
	page, err := s.readPage(ctx, key, plan, opts.Predicate, items)
	if err != nil {
		return err
	}
	acc, err := meta.ListAccessor(listObj)
	if err != nil {
		return storage.NewInternalError(fmt.Sprintf("cannot list into %T: %v", listObj, err))
	}
	acc.SetResourceVersion(fmt.Sprint(page.rev))
	acc.SetContinue(page.next)
	acc.SetRemainingItemCount(page.remaining)
	return nil
}

// itemsValue returns the settable Items slice of listObj, set to an empty non-nil slice.
func itemsValue(listObj runtime.Object) (reflect.Value, error) {
	ptr, err := meta.GetItemsPtr(listObj)
	if err != nil {
		return reflect.Value{}, storage.NewInternalError(fmt.Sprintf("cannot list into %T: %v", listObj, err))
	}
	v, err := conversion.EnforcePtr(ptr)
	if err != nil || v.Kind() != reflect.Slice {
		return reflect.Value{}, storage.NewInternalError(fmt.Sprintf("cannot list into %T: Items is not a slice", listObj))
	}
	v.Set(reflect.MakeSlice(v.Type(), 0, 0))
	return v, nil
}

// planList validates key and the resourceVersion, match and continue options, as
// kube-apiserver's ValidateListOptions. Errors: InvalidObj (400) for a bad key, token,
// resourceVersion or match.
func (s *store) planList(key string, opts storage.ListOptions) (listPlan, error) {
	k, err := s.fullKey(key)
	if err != nil {
		return listPlan{}, err
	}
	if opts.Recursive && !strings.HasSuffix(k, "/") {
		k += "/"
	}
	plan := listPlan{keyPrefix: k, fromKey: k}
	if opts.Recursive && opts.Predicate.Continue != "" {
		if opts.ResourceVersion != "" && opts.ResourceVersion != "0" {
			return listPlan{}, storage.NewInvalidObjError(key, "specifying resource version is not allowed when using continue")
		}
		from, rv, err := storage.DecodeContinue(opts.Predicate.Continue, k)
		if err != nil {
			return listPlan{}, err
		}
		plan.fromKey, plan.continued = from, true
		plan.withRev = max(rv, 0) // rv -1: continue at the latest revision
		return plan, nil
	}
	rv, err := parseResourceVersion(opts.ResourceVersion)
	if err != nil {
		return listPlan{}, err
	}
	switch opts.ResourceVersionMatch {
	case metav1.ResourceVersionMatchNotOlderThan:
		plan.minRV = rv
	case metav1.ResourceVersionMatchExact:
		plan.withRev = rv
	case "":
		// Legacy: a paged list at N reads exactly N; otherwise N is a lower bound.
		if opts.Recursive && opts.Predicate.Limit > 0 && rv > 0 {
			plan.withRev = rv
		} else {
			plan.minRV = rv
		}
	default:
		return listPlan{}, storage.NewInvalidObjError(key, fmt.Sprintf("unknown ResourceVersionMatch value: %v", opts.ResourceVersionMatch))
	}
	plan.anyRV = opts.ResourceVersion == "0"
	return plan, nil
}

// listPage is the result of readPage.
type listPage struct {
	rev       int64  // the revision every read was made at
	next      string // the continue token; "" for the last page
	remaining *int64 // keys after this page, when known (unfiltered lists only)
}

// readPage reads the keys plan describes into items (a slice value), at most
// pred.Limit matching ones when pred.Limit > 0. Every read after the first is at the first's
// revision: an unfiltered page is read pageChunk keys at a time, a filtered one with a
// growing read limit until it holds enough matches.
func (s *store) readPage(ctx context.Context, key string, plan listPlan, pred storage.SelectionPredicate, items reflect.Value) (listPage, error) {
	limit, readLimit, unfiltered := pred.Limit, pred.Limit, pred.Empty()
	chunk := pageChunk(limit)
	if unfiltered && limit > chunk {
		readLimit = chunk
	}
	fromKey, rev := plan.fromKey, plan.withRev
	grown := false
	for {
		start := time.Now()
		resp, err := s.client.Get(ctx, fromKey, s.rangeOptions(plan, rev, readLimit)...)
		if s.serializableUnsupported(err) && plan.anyRV && rev == 0 {
			resp, err = s.client.Get(ctx, fromKey, s.rangeOptions(plan, rev, readLimit)...)
		}
		s.observe("list", start)
		if err != nil {
			if plan.continued && errors.Is(err, rpctypes.ErrCompacted) {
				return listPage{}, continueCompacted(plan)
			}
			return listPage{}, interpretError(err, key, listExpiredMessage, rev)
		}
		if rev == 0 {
			if plan.minRV > resp.Header.Revision {
				// A revision etcd has not reached: wait for it, then read again.
				if err := s.waitForRevision(ctx, key, plan.keyPrefix, plan.minRV, resp.Header.Revision); err != nil {
					return listPage{}, err
				}
				plan.anyRV = false
				continue
			}
			rev = resp.Header.Revision
		}
		if unfiltered && !grown {
			// resp.Count is every key left at rev: make room for the whole page once,
			// rather than once per read of a chunk.
			want := resp.Count
			if limit > 0 {
				want = min(want, limit)
			}
			if n := want - int64(items.Len()); n > 0 {
				items.Grow(int(n))
			}
			grown = true
		}
		before := items.Len()
		hasMore, lastKey, err := s.appendMatching(ctx, resp.Kvs, pred, items)
		if err != nil {
			return listPage{}, err
		}
		hasMore = hasMore || resp.More
		if limit <= 0 || !hasMore || int64(items.Len()) >= limit {
			// resp.Count counts the keys from this read's first on; unfiltered, every key
			// this read appended is an item.
			return s.finishPage(plan, pred, rev, hasMore, lastKey, resp.Count-int64(items.Len()-before))
		}
		fromKey = lastKey + "\x00"
		if unfiltered {
			readLimit = min(chunk, limit-int64(items.Len()))
		} else {
			readLimit = min(readLimit*2, maxFilteredReadLimit)
		}
	}
}

// rangeOptions returns the etcd options of one read of a list at rev (0: the latest).
func (s *store) rangeOptions(plan listPlan, rev, limit int64) []clientv3.OpOption {
	var ops []clientv3.OpOption
	if strings.HasSuffix(plan.keyPrefix, "/") {
		ops = append(ops, clientv3.WithRange(clientv3.GetPrefixRangeEnd(plan.keyPrefix)))
	}
	if limit > 0 {
		ops = append(ops, clientv3.WithLimit(limit))
	}
	switch {
	case rev > 0:
		ops = append(ops, clientv3.WithRev(rev))
	case plan.anyRV && !s.noSerializable.Load():
		ops = append(ops, clientv3.WithSerializable())
	}
	return ops
}

// appendMatching decodes kvs (sharing the decode cache's objects when ctx is marked by
// request.WithReadOnlyResults) and appends those pred matches to items, stopping once items
// holds pred.Limit (when > 0). It returns whether keys were left unread and the last key read.
func (s *store) appendMatching(ctx context.Context, kvs []*mvccpb.KeyValue, pred storage.SelectionPredicate, items reflect.Value) (bool, string, error) {
	lastKey := ""
	if n := int64(len(kvs)); pred.Empty() && n > 0 {
		// Every key read is an item: make room once rather than growing the slice item by item.
		if pred.Limit > 0 {
			n = min(n, pred.Limit-int64(items.Len()))
		}
		if n > 0 {
			items.Grow(int(n))
		}
	}
	for _, kv := range kvs {
		if pred.Limit > 0 && int64(items.Len()) >= pred.Limit {
			return true, lastKey, nil
		}
		lastKey = string(kv.Key)
		data, err := s.plain(ctx, lastKey, kv.Value)
		if err != nil {
			return false, "", err
		}
		obj, err := s.decodeFor(ctx, lastKey, data, kv.ModRevision, kv.ModRevision)
		if err != nil {
			return false, "", err
		}
		ok, err := pred.Matches(obj)
		if err != nil {
			return false, "", err
		}
		if ok {
			if err := appendItem(items, obj); err != nil {
				return false, "", err
			}
		}
	}
	return false, lastKey, nil
}

// finishPage computes the continue token and remaining count of a page; after is how many
// keys follow the page's last (meaningful for unfiltered pages only).
func (s *store) finishPage(plan listPlan, pred storage.SelectionPredicate, rev int64, hasMore bool, lastKey string, after int64) (listPage, error) {
	page := listPage{rev: rev}
	if !hasMore || pred.Limit <= 0 {
		return page, nil
	}
	next, err := storage.EncodeContinue(lastKey+"\x00", plan.keyPrefix, rev)
	if err != nil {
		return listPage{}, err
	}
	page.next = next
	if pred.Empty() {
		remaining := after
		page.remaining = &remaining
	}
	return page, nil
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

// continueCompacted is the 410 for a continued list whose revision was compacted: it carries
// a token that goes on from the same key at the latest revision, as kube-apiserver's
// handleCompactedErrorForPaging.
func continueCompacted(plan listPlan) error {
	token, err := storage.EncodeContinue(plan.fromKey, plan.keyPrefix, -1)
	if err != nil {
		return storage.NewExpiredError(plan.withRev, continueExpiredMessage)
	}
	return storage.NewInconsistentContinueError(token, inconsistentContinueMessage)
}
