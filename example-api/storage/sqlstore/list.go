package sqlstore

import (
	"context"
	"database/sql"
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

// Kubernetes' wording for expired reads (k8s.io/apiserver/pkg/storage/etcd3), as etcd3's
// store words them.
const (
	listExpiredMessage     = "The resourceVersion for the provided list is too old."
	watchExpiredMessage    = "The resourceVersion for the provided watch is too old."
	continueExpiredMessage = "The provided continue parameter is too old to display a consistent list result. " +
		"You can start a new list without the continue parameter."
	inconsistentContinueMessage = "The provided continue parameter is too old to display a consistent list result. " +
		"You can start a new list without the continue parameter, or use the continue token in this response to " +
		"retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - " +
		"objects that were created, modified, or deleted between the time the first chunk was returned and now may " +
		"show up in the list."
)

// readChunk is how many rows a list reads at a time.
const readChunk = 500

// listPlan is what a GetList reads: keys from fromKey (inclusive) to endKey (exclusive), at
// revision rev (0: the latest).
type listPlan struct {
	keyPrefix, fromKey, endKey string
	rev                        int64
	// minRV is the oldest revision the caller accepts (resourceVersion N, NotOlderThan).
	minRV     int64
	continued bool
}

// GetList implements storage.Interface. A list at the latest revision (resourceVersion "",
// "0", NotOlderThan) reads the object table; one at a given revision (Exact, a paged list
// at N, a continue token) reads the change log. Every read of one call is made in one
// REPEATABLE READ transaction, at one revision.
func (s *Store) GetList(ctx context.Context, key string, opts storage.ListOptions, listObj runtime.Object) error {
	items, err := itemsValue(listObj)
	if err != nil {
		return err
	}
	plan, err := s.planList(key, opts)
	if err != nil {
		return err
	}
	tx, err := s.cfg.DB.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
	if err != nil {
		return dbError(key, err)
	}
	defer func() { _ = tx.Rollback() }()
	var current, compacted int64
	if err := tx.QueryRowContext(ctx, s.q.revisions).Scan(&current, &compacted); err != nil {
		return dbError(key, err)
	}
	switch rev := plan.rev; {
	case plan.minRV > current:
		return storage.NewResourceVersionTooLargeError(plan.minRV, current)
	case rev == 0:
	case rev < compacted:
		if plan.continued {
			token, err := storage.EncodeContinue(plan.fromKey, plan.keyPrefix, -1)
			if err != nil {
				return storage.NewExpiredError(rev, continueExpiredMessage)
			}
			return storage.NewInconsistentContinueError(token, inconsistentContinueMessage)
		}
		return storage.NewExpiredError(rev, listExpiredMessage)
	case rev > current:
		return storage.NewResourceVersionTooLargeError(rev, current)
	}
	rev := plan.rev
	if rev == 0 || rev == current {
		rev = 0 // the object table is the state at current
	}
	next, remaining, err := s.readPage(ctx, tx, plan, rev, opts.Predicate, items)
	if err != nil {
		return err
	}
	acc, err := meta.ListAccessor(listObj)
	if err != nil {
		return storage.NewInternalError(fmt.Sprintf("cannot list into %T: %v", listObj, err))
	}
	listRev := plan.rev
	if listRev == 0 {
		listRev = current
	}
	acc.SetResourceVersion(strconv.FormatInt(listRev, 10))
	if next != "" {
		token, err := storage.EncodeContinue(next, plan.keyPrefix, listRev)
		if err != nil {
			return err
		}
		acc.SetContinue(token)
		acc.SetRemainingItemCount(remaining)
	} else {
		acc.SetContinue("")
		acc.SetRemainingItemCount(nil)
	}
	return nil
}

// planList validates the key, resourceVersion, match and continue token, as etcd3's store.
// Errors: InvalidObj (400).
func (s *Store) planList(key string, opts storage.ListOptions) (listPlan, error) {
	k, err := s.cleanKey(key)
	if err != nil {
		return listPlan{}, err
	}
	if !opts.Recursive {
		return listPlan{keyPrefix: k, fromKey: k, endKey: k + "\x00"}, nil
	}
	if !strings.HasSuffix(k, "/") {
		k += "/"
	}
	plan := listPlan{keyPrefix: k, fromKey: k, endKey: prefixEnd(k)}
	if opts.Predicate.Continue != "" {
		if opts.ResourceVersion != "" && opts.ResourceVersion != "0" {
			return listPlan{}, storage.NewInvalidObjError(key, "specifying resource version is not allowed when using continue")
		}
		from, rv, err := storage.DecodeContinue(opts.Predicate.Continue, k)
		if err != nil {
			return listPlan{}, err
		}
		plan.fromKey, plan.continued, plan.rev = from, true, max(rv, 0)
		return plan, nil
	}
	var rv int64
	if opts.ResourceVersion != "" {
		if rv, err = strconv.ParseInt(opts.ResourceVersion, 10, 64); err != nil || rv < 0 {
			return listPlan{}, storage.NewInvalidObjError(key, fmt.Sprintf("invalid resource version %q", opts.ResourceVersion))
		}
	}
	switch opts.ResourceVersionMatch {
	case metav1.ResourceVersionMatchExact:
		plan.rev = rv
	case "":
		// Legacy: a paged list at N reads exactly N; otherwise N is a lower bound.
		if opts.Predicate.Limit > 0 && rv > 0 {
			plan.rev = rv
		} else {
			plan.minRV = rv
		}
	case metav1.ResourceVersionMatchNotOlderThan:
		plan.minRV = rv
	default:
		return listPlan{}, storage.NewInvalidObjError(key, fmt.Sprintf("unknown ResourceVersionMatch value: %v", opts.ResourceVersionMatch))
	}
	return plan, nil
}

// prefixEnd returns the first key after every key starting with prefix (a key prefix ending
// in "/": its last byte plus one).
func prefixEnd(prefix string) string {
	b := []byte(prefix)
	b[len(b)-1]++
	return string(b)
}

// readPage appends the matching objects of plan at rev (0: the object table) to items, at
// most pred.Limit when > 0, and returns the key a next page starts from ("" when none) and,
// for an unfiltered page, how many keys follow it.
func (s *Store) readPage(ctx context.Context, tx *sql.Tx, plan listPlan, rev int64, pred storage.SelectionPredicate,
	items reflect.Value) (string, *int64, error) {
	from := plan.fromKey
	lastKey := ""
	for {
		rows, err := s.readRows(ctx, tx, from, plan.endKey, rev)
		if err != nil {
			return "", nil, err
		}
		for _, r := range rows {
			if pred.Limit > 0 && int64(items.Len()) >= pred.Limit {
				return s.finishPage(ctx, tx, plan, rev, pred, lastKey)
			}
			lastKey = r.key
			obj, err := s.decode(r.data, r.rev)
			if err != nil {
				return "", nil, err
			}
			ok, err := pred.Matches(obj)
			if err != nil {
				return "", nil, err
			}
			if ok {
				if err := appendItem(items, obj); err != nil {
					return "", nil, err
				}
			}
		}
		if len(rows) < readChunk {
			return "", nil, nil
		}
		from = lastKey + "\x00"
	}
}

// finishPage returns the next page's start key after lastKey, and the count of keys after it
// for an unfiltered page; none when no key follows.
func (s *Store) finishPage(ctx context.Context, tx *sql.Tx, plan listPlan, rev int64, pred storage.SelectionPredicate,
	lastKey string) (string, *int64, error) {
	var n int64
	var err error
	if rev == 0 {
		err = tx.QueryRowContext(ctx, s.q.countLatest, lastKey, sqlKey(plan.endKey)).Scan(&n)
	} else {
		err = tx.QueryRowContext(ctx, s.q.countAt, lastKey, sqlKey(plan.endKey), rev).Scan(&n)
	}
	if err != nil {
		return "", nil, dbError(plan.keyPrefix, err)
	}
	if n == 0 {
		return "", nil, nil
	}
	if !pred.Empty() {
		return lastKey + "\x00", nil, nil
	}
	return lastKey + "\x00", &n, nil
}

// sqlKey returns a key bound for SQL, which refuses NUL in text: k+"\x00" (the first key after
// k) becomes k+"\x01", the same bound for keys, which never hold a control character.
func sqlKey(k string) string {
	if strings.HasSuffix(k, "\x00") {
		return k[:len(k)-1] + "\x01"
	}
	return k
}

// readRows reads up to readChunk rows from from to end, at rev (0: the object table).
func (s *Store) readRows(ctx context.Context, tx *sql.Tx, from, end string, rev int64) ([]row, error) {
	var rows *sql.Rows
	var err error
	if rev == 0 {
		rows, err = tx.QueryContext(ctx, s.q.latest, sqlKey(from), sqlKey(end), readChunk)
	} else {
		rows, err = tx.QueryContext(ctx, s.q.at, sqlKey(from), sqlKey(end), rev, readChunk)
	}
	if err != nil {
		return nil, dbError(from, err)
	}
	defer rows.Close()
	var out []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.key, &r.rev, &r.data); err != nil {
			return nil, dbError(from, err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, dbError(from, err)
	}
	return out, nil
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
