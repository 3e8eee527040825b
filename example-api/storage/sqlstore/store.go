package sqlstore

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/runtime/storage"
)

// Default intervals of Config.
const (
	// DefaultPollInterval is how often a watch reads the change log for writes made by other
	// servers (writes through its own Store wake it at once).
	DefaultPollInterval = 100 * time.Millisecond
	// DefaultBookmarkInterval is the gap between BOOKMARK events of an idle watch that asks
	// for them.
	DefaultBookmarkInterval = time.Second
)

// Config configures a Store.
type Config struct {
	// DB is the PostgreSQL database (sql.Open("pgx", dsn)); required. The Store does not
	// close it.
	DB *sql.DB
	// Table names the object table; its log and revision tables are Table+"_changes" and
	// Table+"_revision". Lower-case letters, digits and '_'; required.
	Table string
	// Codec encodes objects to the JSON of the storage version and decodes them; required.
	Codec runtime.Codec
	// NewFunc returns an empty object of the resource; required.
	NewFunc func() runtime.Object
	// Resource names the resource in errors.
	Resource schema.GroupResource
	// PollInterval and BookmarkInterval tune watches; 0 means DefaultPollInterval and
	// DefaultBookmarkInterval.
	PollInterval, BookmarkInterval time.Duration
}

// Store is a storage.Interface over the tables of Config.Table (see the package
// documentation). Keys are the registry's ("/<namespace>/<name>", "/<name>"); they are stored
// as they are, in the key column. Safe for concurrent use.
type Store struct {
	cfg Config
	// q holds the table names for queries.
	q queries

	mu sync.Mutex
	// written is closed (and replaced) after each write through this Store, and on each
	// notification of a write through another: it wakes this Store's watches.
	written chan struct{}

	// listenOnce starts the listener (startListener); stopListener stops it.
	listenOnce   sync.Once
	stopListener func()
}

var _ storage.Interface = (*Store)(nil)

// tableName is what Config.Table may be.
var tableName = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,40}$`)

// New returns the Store of cfg, creating its tables when they do not exist.
// Errors: a Config field missing or invalid, or the database's error creating the tables.
func New(ctx context.Context, cfg Config) (*Store, error) {
	if cfg.DB == nil || cfg.Codec == nil || cfg.NewFunc == nil {
		return nil, errors.New("sqlstore: Config needs DB, Codec and NewFunc")
	}
	if !tableName.MatchString(cfg.Table) {
		return nil, fmt.Errorf("sqlstore: table name %q: write lower-case letters, digits and '_' (at most 41)", cfg.Table)
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = DefaultPollInterval
	}
	if cfg.BookmarkInterval <= 0 {
		cfg.BookmarkInterval = DefaultBookmarkInterval
	}
	s := &Store{cfg: cfg, q: newQueries(cfg.Table), written: make(chan struct{})}
	for _, stmt := range s.q.schema {
		if _, err := cfg.DB.ExecContext(ctx, stmt); err != nil {
			return nil, fmt.Errorf("sqlstore: cannot create the tables of %s: %w", cfg.Table, err)
		}
	}
	return s, nil
}

// row is one object as read: its key, revision and stored JSON.
type row struct {
	key  string
	rev  int64
	data []byte
}

// cleanKey checks a registry key, as etcd3's store: no "." or ".." segment, so no key
// escapes the resource. A key ending in "/" (a prefix) keeps it. Errors: InvalidObj.
func (s *Store) cleanKey(key string) (string, error) {
	for _, seg := range strings.Split(key, "/") {
		if seg == "." || seg == ".." {
			return "", storage.NewInvalidObjError(key, fmt.Sprintf("invalid key %q for %s: it may not contain %q", key, s.cfg.Resource, seg))
		}
	}
	cleaned := path.Clean("/" + key)
	if strings.HasSuffix(key, "/") && cleaned != "/" {
		cleaned += "/"
	}
	return cleaned, nil
}

// splitKey returns the namespace and name of a key ("/ns/name" or "/name").
func splitKey(key string) (namespace, name string) {
	parts := strings.Split(strings.TrimPrefix(key, "/"), "/")
	if len(parts) >= 2 {
		return parts[0], parts[len(parts)-1]
	}
	return "", parts[0]
}

// encode returns the JSON stored for obj: a copy without its resourceVersion, encoded with
// the codec. Errors: Internal.
func (s *Store) encode(obj runtime.Object) ([]byte, error) {
	obj = obj.DeepCopyObject()
	if err := setRV(obj, 0); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := s.cfg.Codec.Encode(obj, &buf); err != nil {
		return nil, storage.NewInternalError(fmt.Sprintf("cannot encode %T for %s: %v", obj, s.cfg.Resource, err))
	}
	return buf.Bytes(), nil
}

// decodeInto decodes stored JSON into out and sets its resourceVersion to rev.
// Errors: Internal.
func (s *Store) decodeInto(data []byte, rev int64, out runtime.Object) error {
	got, _, err := s.cfg.Codec.Decode(data, nil, out)
	if err != nil {
		return storage.NewInternalError(fmt.Sprintf("cannot decode a stored %s: %v", s.cfg.Resource, err))
	}
	if got != out {
		return storage.NewInternalError(fmt.Sprintf("decoding a stored %s gave a %T, not into %T", s.cfg.Resource, got, out))
	}
	return setRV(out, rev)
}

// decode decodes stored JSON into a new object at rev.
func (s *Store) decode(data []byte, rev int64) (runtime.Object, error) {
	obj := s.cfg.NewFunc()
	if err := s.decodeInto(data, rev, obj); err != nil {
		return nil, err
	}
	return obj, nil
}

// setRV sets obj's resourceVersion (0: none).
func setRV(obj runtime.Object, rev int64) error {
	acc, err := meta.Accessor(obj)
	if err != nil {
		return storage.NewInternalError(fmt.Sprintf("cannot set the resourceVersion of %T: %v", obj, err))
	}
	if rev == 0 {
		acc.SetResourceVersion("")
	} else {
		acc.SetResourceVersion(strconv.FormatInt(rev, 10))
	}
	return nil
}

// dbError turns a database error for key into a storage error: the end of ctx is Timeout,
// anything else Unreachable (the server answers 503/500 with a Status, as for etcd).
func dbError(key string, err error) error {
	var se *storage.StatusError
	switch {
	case errors.As(err, &se):
		return err
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return storage.NewTimeoutError(key, false, err)
	}
	return storage.NewUnreachableError(key, err)
}

// notify wakes this Store's watches after a write.
func (s *Store) notify() {
	s.mu.Lock()
	close(s.written)
	s.written = make(chan struct{})
	s.mu.Unlock()
}

// wake returns the channel the next write closes.
func (s *Store) wake() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.written
}

// write runs fn in a transaction that holds the next revision (the revision row's lock, so
// that writes commit in revision order) and commits it, then wakes the watches. fn returning
// errRetry rolls back and is returned as is.
func (s *Store) write(ctx context.Context, key string, fn func(tx *sql.Tx, rev int64) error) (int64, error) {
	tx, err := s.cfg.DB.BeginTx(ctx, nil)
	if err != nil {
		return 0, dbError(key, err)
	}
	defer func() { _ = tx.Rollback() }()
	var rev int64
	if err := tx.QueryRowContext(ctx, s.q.nextRevision).Scan(&rev); err != nil {
		return 0, dbError(key, err)
	}
	if err := fn(tx, rev); err != nil {
		return 0, err
	}
	if _, err := tx.ExecContext(ctx, s.q.notify, s.channel()); err != nil {
		return 0, dbError(key, err)
	}
	if err := tx.Commit(); err != nil {
		return 0, dbError(key, err)
	}
	s.notify()
	return rev, nil
}

// errRetry is a write's lost race: the row changed since it was read.
var errRetry = errors.New("sqlstore: the row changed since it was read")

// Create implements storage.Interface.
func (s *Store) Create(ctx context.Context, key string, obj, out runtime.Object) error {
	key, err := s.cleanKey(key)
	if err != nil {
		return err
	}
	if acc, err := meta.Accessor(obj); err != nil || acc.GetResourceVersion() != "" {
		return storage.NewInvalidObjError(key, "resourceVersion should not be set on objects to be created")
	}
	data, err := s.encode(obj)
	if err != nil {
		return err
	}
	rev, err := s.write(ctx, key, func(tx *sql.Tx, rev int64) error { return s.insert(ctx, tx, key, rev, data) })
	if errors.Is(err, errRetry) {
		return storage.NewKeyExistsError(key, 0)
	}
	if err != nil {
		return err
	}
	return s.decodeInto(data, rev, out)
}

// insert stores a new object and logs ADDED; errRetry when the key exists.
func (s *Store) insert(ctx context.Context, tx *sql.Tx, key string, rev int64, data []byte) error {
	ns, name := splitKey(key)
	res, err := tx.ExecContext(ctx, s.q.insert, key, ns, name, rev, data)
	if err != nil {
		return dbError(key, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return errRetry
	}
	if _, err := tx.ExecContext(ctx, s.q.logChange, rev, key, "ADDED", data, nil); err != nil {
		return dbError(key, err)
	}
	return nil
}

// Get implements storage.Interface. Every read is of the latest state, which is at least as
// new as any resourceVersion asked for.
func (s *Store) Get(ctx context.Context, key string, opts storage.GetOptions, out runtime.Object) error {
	key, err := s.cleanKey(key)
	if err != nil {
		return err
	}
	r, err := s.read(ctx, key)
	if err != nil {
		return err
	}
	if r == nil {
		if opts.IgnoreNotFound {
			return zero(out)
		}
		return storage.NewKeyNotFoundError(key, 0)
	}
	return s.decodeInto(r.data, r.rev, out)
}

// read returns the current row of key, or nil when there is none.
func (s *Store) read(ctx context.Context, key string) (*row, error) {
	r := &row{key: key}
	err := s.cfg.DB.QueryRowContext(ctx, s.q.get, key).Scan(&r.rev, &r.data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, dbError(key, err)
	}
	return r, nil
}

// zero sets out to its zero value.
func zero(out runtime.Object) error {
	if err := runtime.SetZeroValue(out); err != nil {
		return storage.NewInternalError(fmt.Sprintf("cannot reset %T: %v", out, err))
	}
	return nil
}

// GuaranteedUpdate implements storage.Interface: read the row, run tryUpdate on the decoded
// object, and write the result only where the row's resource_version is still the one read;
// otherwise read again and retry.
func (s *Store) GuaranteedUpdate(ctx context.Context, key string, dest runtime.Object, ignoreNotFound bool,
	preconditions *storage.Preconditions, tryUpdate storage.UpdateFunc) error {
	key, err := s.cleanKey(key)
	if err != nil {
		return err
	}
	for {
		cur, err := s.read(ctx, key)
		if err != nil {
			return err
		}
		var obj runtime.Object
		switch {
		case cur != nil:
			if obj, err = s.decode(cur.data, cur.rev); err != nil {
				return err
			}
		case ignoreNotFound:
			obj = s.cfg.NewFunc()
		default:
			return storage.NewKeyNotFoundError(key, 0)
		}
		if err := preconditions.Check(key, obj); err != nil {
			return err
		}
		updated, err := tryUpdate(obj.DeepCopyObject())
		if err != nil {
			return err
		}
		data, err := s.encode(updated)
		if err != nil {
			return err
		}
		if cur != nil && bytes.Equal(data, mustReencode(s, obj)) {
			return s.decodeInto(cur.data, cur.rev, dest)
		}
		rev, err := s.write(ctx, key, func(tx *sql.Tx, rev int64) error {
			if cur == nil {
				return s.insert(ctx, tx, key, rev, data)
			}
			res, err := tx.ExecContext(ctx, s.q.update, key, cur.rev, rev, data)
			if err != nil {
				return dbError(key, err)
			}
			if n, _ := res.RowsAffected(); n == 0 {
				return errRetry
			}
			if _, err := tx.ExecContext(ctx, s.q.logChange, rev, key, "MODIFIED", data, cur.data); err != nil {
				return dbError(key, err)
			}
			return nil
		})
		if errors.Is(err, errRetry) {
			continue
		}
		if err != nil {
			return err
		}
		return s.decodeInto(data, rev, dest)
	}
}

// mustReencode returns obj's stored encoding, or nil when it cannot be encoded (then no
// update is a no-op).
func mustReencode(s *Store, obj runtime.Object) []byte {
	data, err := s.encode(obj)
	if err != nil {
		return nil
	}
	return data
}

// Delete implements storage.Interface: the row is deleted only where its resource_version is
// the one checked; otherwise it is read and checked again.
func (s *Store) Delete(ctx context.Context, key string, out runtime.Object, preconditions *storage.Preconditions,
	validateDeletion storage.ValidateObjectFunc) error {
	key, err := s.cleanKey(key)
	if err != nil {
		return err
	}
	for {
		cur, err := s.read(ctx, key)
		if err != nil {
			return err
		}
		if cur == nil {
			return storage.NewKeyNotFoundError(key, 0)
		}
		obj, err := s.decode(cur.data, cur.rev)
		if err != nil {
			return err
		}
		if err := preconditions.Check(key, obj); err != nil {
			return err
		}
		if validateDeletion != nil {
			if err := validateDeletion(ctx, obj); err != nil {
				return err
			}
		}
		rev, err := s.write(ctx, key, func(tx *sql.Tx, rev int64) error {
			res, err := tx.ExecContext(ctx, s.q.remove, key, cur.rev)
			if err != nil {
				return dbError(key, err)
			}
			if n, _ := res.RowsAffected(); n == 0 {
				return errRetry
			}
			if _, err := tx.ExecContext(ctx, s.q.logChange, rev, key, "DELETED", cur.data, nil); err != nil {
				return dbError(key, err)
			}
			return nil
		})
		if errors.Is(err, errRetry) {
			continue
		}
		if err != nil {
			return err
		}
		return s.decodeInto(cur.data, rev, out)
	}
}
