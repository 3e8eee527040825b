package cacher

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/conversion"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apigen-dev/apigen/runtime/request"
	"github.com/apigen-dev/apigen/runtime/storage"
)

// listPlan is which state of the cache a GetList reads, and from where.
type listPlan struct {
	key       string // the cleaned key: a prefix ending in "/" when recursive
	recursive bool
	fromKey   string // the first key to read (a continue token's), else key
	// exact > 0 reads the state at exactly that revision (Exact, a legacy paged list at N,
	// a continue token); otherwise the latest state, once the cache has reached minRev, or
	// for consistent the revision a quorum read sees now.
	exact      int64
	minRev     int64
	consistent bool
	// allItems ignores the limit: resourceVersion "0", as kube-apiserver's cache does.
	allItems bool
}

// errDelegate means the cache cannot serve a read: storage does.
var errDelegate = errors.New("the watch cache cannot serve this read")

// GetList implements storage.Interface from the cache, as kube-apiserver's cacher with
// ConsistentListFromCache and ListFromCacheSnapshot: resourceVersion "" (a quorum list)
// waits until the cache has reached the revision a linearizable read of storage returns
// now; "0" is served at once (without paging: the limit is ignored, as kube's cache does);
// N with NotOlderThan (or unpaged) once the cache has reached N; Exact N, a paged list at N
// and continue tokens from the snapshot of the cache at that revision. Pages, continue
// tokens and remainingItemCount are etcd3's. A read the cache cannot serve (a revision
// before its history or compacted in storage, a cache not synced or not caught up within
// freshTimeout, storage that cannot report its revision) goes to storage.
func (c *Cacher) GetList(ctx context.Context, key string, opts storage.ListOptions, listObj runtime.Object) error {
	plan, err := c.planList(key, opts)
	if err != nil {
		return err
	}
	objects, rev, err := c.snapshotFor(ctx, plan)
	if errors.Is(err, errDelegate) {
		return c.storage.GetList(ctx, key, opts, listObj)
	}
	if err != nil {
		return err
	}
	src := candidates(func(from string, fn func(*entry) bool) { ascendFrom(objects, plan.key, from, plan.recursive, fn) })
	if plan.recursive {
		if narrowed, v, ok := c.state.narrow(objects, plan.key, opts.Predicate, plan.exact == 0); ok {
			src = narrowed
			if v != nil {
				objects, rev = v.objects, v.rev
			}
		}
	}
	return fillList(ctx, objects, rev, plan, opts.Predicate, src, listObj)
}

// planList validates key and the resourceVersion, match and continue options as etcd3 does
// (kube-apiserver's ValidateListOptions) and decides what to read. Errors: InvalidObj (400)
// for a bad key, token, resourceVersion or match.
func (c *Cacher) planList(key string, opts storage.ListOptions) (listPlan, error) {
	k, err := c.cleanKey(key, opts.Recursive)
	if err != nil {
		return listPlan{}, err
	}
	plan := listPlan{key: k, recursive: opts.Recursive || strings.HasSuffix(k, "/"), fromKey: k}
	if plan.recursive && opts.Predicate.Continue != "" {
		if opts.ResourceVersion != "" && opts.ResourceVersion != "0" {
			return listPlan{}, storage.NewInvalidObjError(key, "specifying resource version is not allowed when using continue")
		}
		from, rv, err := storage.DecodeContinue(opts.Predicate.Continue, k)
		if err != nil {
			return listPlan{}, err
		}
		plan.fromKey = from
		if rv > 0 {
			plan.exact = rv
		} else {
			plan.consistent = true // rv -1: go on at the latest revision
		}
		return plan, nil
	}
	rv, err := storage.ParseResourceVersion(opts.ResourceVersion)
	if err != nil {
		return listPlan{}, err
	}
	switch opts.ResourceVersionMatch {
	case metav1.ResourceVersionMatchNotOlderThan:
		plan.minRev = rv
	case metav1.ResourceVersionMatchExact:
		plan.exact, plan.consistent = rv, rv == 0
	case "":
		switch {
		case opts.ResourceVersion == "":
			plan.consistent = true
		case opts.ResourceVersion == "0":
			plan.allItems = true
		case plan.recursive && opts.Predicate.Limit > 0:
			plan.exact = rv // legacy: a paged list at N reads exactly N
		default:
			plan.minRev = rv
		}
	default:
		return listPlan{}, storage.NewInvalidObjError(key, fmt.Sprintf("unknown ResourceVersionMatch value: %v", opts.ResourceVersionMatch))
	}
	return plan, nil
}

// snapshotFor returns the objects plan reads and their revision. Errors: errDelegate, or
// ctx's or storage's error.
func (c *Cacher) snapshotFor(ctx context.Context, plan listPlan) (*tree, int64, error) {
	need := plan.minRev
	switch {
	case plan.consistent:
		if c.revisions == nil {
			return nil, 0, errDelegate
		}
		rev, err := c.revisions.CurrentRevision(ctx)
		if err != nil {
			return nil, 0, err
		}
		need = rev
	case plan.exact > 0:
		if c.compacted != nil && plan.exact < c.compacted() {
			return nil, 0, errDelegate // etcd answers 410, with a token to go on
		}
		need = plan.exact
	}
	v, err := c.state.waitFresh(ctx, need, c.askProgress)
	if err != nil {
		if ctx.Err() != nil {
			return nil, 0, err
		}
		return nil, 0, errDelegate
	}
	if plan.exact == 0 {
		return v.objects, v.rev, nil
	}
	t, ok := c.state.snapshotAt(plan.exact)
	if !ok {
		return nil, 0, errDelegate
	}
	return t, plan.exact, nil
}

// fillList reads plan's page of objects (at revision rev) into listObj: the entries from
// plan.fromKey on that pred selects (looked for in src), at most pred.Limit of them, the
// continue token when keys follow the last one, and for an unfiltered page the number of
// keys after it.
func fillList(ctx context.Context, objects *tree, rev int64, plan listPlan, pred storage.SelectionPredicate, src candidates,
	listObj runtime.Object) error {
	limit := pred.Limit
	if plan.allItems || !plan.recursive {
		limit = 0
	}
	unfiltered := pred.Empty()
	read := readerFor(ctx)
	var objs []runtime.Object // the page's objects, each read once
	var last *entry           // the page's last entry
	hasMore, after := false, int64(0)
	if unfiltered {
		ascendFrom(objects, plan.key, plan.fromKey, plan.recursive, func(e *entry) bool {
			if limit > 0 && int64(len(objs)) >= limit {
				hasMore = true
				after++ // count the keys after the page
				return true
			}
			objs, last = append(objs, read(e)), e
			return true
		})
	} else {
		src(plan.fromKey, func(e *entry) bool {
			examined.Add(1)
			if obj := read(e); matches(pred, obj) {
				objs, last = append(objs, obj), e
			}
			return limit <= 0 || int64(len(objs)) < limit
		})
		// As etcd3: a continue token whenever keys follow the page's last, matching or not.
		hasMore = limit > 0 && int64(len(objs)) >= limit && keyAfter(objects, plan.key, last.key)
	}
	if err := setItems(ctx, listObj, objs); err != nil {
		return err
	}
	acc, err := meta.ListAccessor(listObj)
	if err != nil {
		return storage.NewInternalError(fmt.Sprintf("cannot list into %T: %v", listObj, err))
	}
	acc.SetResourceVersion(formatRevision(rev))
	acc.SetContinue("")
	acc.SetRemainingItemCount(nil)
	if hasMore {
		next, err := storage.EncodeContinue(last.key+"\x00", plan.key, rev)
		if err != nil {
			return err
		}
		acc.SetContinue(next)
		if unfiltered {
			acc.SetRemainingItemCount(&after)
		}
	}
	return nil
}

// examined counts the entries filtered lists have matched against their predicate (tests
// check that an indexed or namespaced list reads only its candidates).
var examined atomic.Int64

// matches reports whether pred selects obj; an object it cannot judge is left out.
func matches(pred storage.SelectionPredicate, obj runtime.Object) bool {
	ok, err := pred.Matches(obj)
	return err == nil && ok
}

// readerFor returns how a list or a watch's initial events of ctx read an entry's object:
// entry.listed (a read: a cold object is decoded for the reader, and kept decoded when read
// again before the cooler's next pass), or entry.peek for a reader marked by
// request.WithTransientReads (a cold object is decoded for that reader only, the entry stays
// cold and unmarked).
func readerFor(ctx context.Context) func(*entry) runtime.Object {
	if request.TransientReads(ctx) {
		return (*entry).peek
	}
	return (*entry).listed
}

// setItems sets listObj's Items (a slice of structs, pointers or interfaces) to objs, the
// cache's objects, handed out as handOut does (shallow copies when ctx is read-only).
func setItems(ctx context.Context, listObj runtime.Object, objs []runtime.Object) error {
	ptr, err := meta.GetItemsPtr(listObj)
	if err != nil {
		return storage.NewInternalError(fmt.Sprintf("cannot list into %T: %v", listObj, err))
	}
	items, err := conversion.EnforcePtr(ptr)
	if err != nil || items.Kind() != reflect.Slice {
		return storage.NewInternalError(fmt.Sprintf("cannot list into %T: Items is not a slice", listObj))
	}
	out := reflect.MakeSlice(items.Type(), len(objs), len(objs))
	elem := items.Type().Elem()
	shared := request.ReadOnlyResults(ctx)
	for i, cached := range objs {
		obj := cached
		if !shared || !storage.Shareable(obj) {
			obj = obj.DeepCopyObject()
		}
		ov := reflect.ValueOf(obj)
		switch {
		case elem.Kind() == reflect.Struct && ov.Elem().Type() == elem:
			out.Index(i).Set(ov.Elem()) // a copy of the struct: the item's own metadata
		case ov.Type().AssignableTo(elem):
			if obj == cached {
				obj = storage.ShallowCopy(obj)
			}
			out.Index(i).Set(reflect.ValueOf(obj))
		default:
			return storage.NewInternalError(fmt.Sprintf("cannot list %T into a list of %v", cached, elem))
		}
	}
	items.Set(out)
	return nil
}

// ascendFrom calls fn, in key order, for the entries of t under key (recursive) from the key
// from on, or for the entry at key; it stops when fn returns false.
func ascendFrom(t *tree, key, from string, recursive bool, fn func(*entry) bool) {
	if !recursive {
		if e, ok := t.Get(&entry{key: key}); ok {
			fn(e)
		}
		return
	}
	t.AscendGreaterOrEqual(&entry{key: from}, func(e *entry) bool {
		return strings.HasPrefix(e.key, key) && fn(e)
	})
}

// ascend is ascendFrom from the first key.
func ascend(t *tree, key string, recursive bool, fn func(*entry) bool) {
	ascendFrom(t, key, key, recursive, fn)
}

// formatRevision renders a revision as a resourceVersion.
func formatRevision(rev int64) string { return strconv.FormatInt(rev, 10) }
