package sqlstore_test

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/apigen-dev/apigen/example-api/storage/sqlstore"
	"github.com/apigen-dev/apigen/internal/pgtest"
	"github.com/apigen-dev/apigen/runtime/storage"
	"github.com/apigen-dev/apigen/runtime/storage/storagetest"
	"github.com/apigen-dev/apigen/runtime/storage/storagetest/testapi"
)

// open opens a new connection pool to the database at url, closed in cleanup.
func open(t *testing.T, url string) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// newStore returns a Store of widgets in table, over db, closed in cleanup (before db).
func newStore(t *testing.T, db *sql.DB, table string) *sqlstore.Store {
	t.Helper()
	return newStoreWith(t, sqlstore.Config{DB: db, Table: table})
}

// newStoreWith is newStore with cfg's DB, table and intervals.
func newStoreWith(t *testing.T, cfg sqlstore.Config) *sqlstore.Store {
	t.Helper()
	cfg.Codec, cfg.NewFunc, cfg.Resource = testapi.Codec(), testapi.NewWidget, testapi.Resource
	s, err := sqlstore.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// TestConformance: the storage contract (runtime/storage/storagetest, the whole kit) holds
// for the SQL store over a real PostgreSQL, its replica being a second Store with its own
// connection pool on the same tables (another server on the same database). Left out:
// list-matches-reference, whose reference is etcd3 on the same keys (the kit compares lists
// with etcd's; there is no etcd here).
func TestConformance(t *testing.T) {
	t.Parallel()
	pg := pgtest.Start(t)
	db := open(t, pg.URL("postgres"))
	var n atomic.Int64
	var last *sqlstore.Store
	var table string
	storagetest.Run(t, storagetest.Backend{
		New: func(t *testing.T) storage.Interface {
			table = fmt.Sprintf("widgets_%d", n.Add(1))
			last = newStore(t, db, table)
			return last
		},
		Compact: func(t *testing.T) {
			if _, err := last.Compact(context.Background()); err != nil {
				t.Fatalf("Compact: %v", err)
			}
		},
		NewReplica: func(t *testing.T) storage.Interface {
			return newStore(t, open(t, pg.URL("postgres")), table)
		},
	})
}

// TestCompactor: RunCompactor trims the log at the revision of its previous tick, after which
// a watch or an exact list from before it is 410 Gone (Expired), while the objects stay;
// a list not older than a revision the table has not reached is Too large resource version.
func TestCompactor(t *testing.T) {
	t.Parallel()
	pg := pgtest.Start(t)
	s := newStore(t, open(t, pg.URL("postgres")), "widgets")
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	created := &testapi.Widget{}
	w := &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}, Spec: testapi.WidgetSpec{Color: "red"}}
	if err := s.Create(ctx, "/ns/a", w, created); err != nil {
		t.Fatal(err)
	}
	if err := s.GuaranteedUpdate(ctx, "/ns/a", &testapi.Widget{}, false, nil, func(in runtime.Object) (runtime.Object, error) {
		in.(*testapi.Widget).Spec.Size = 2
		return in, nil
	}); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.RunCompactor(ctx, 20*time.Millisecond, slog.New(slog.DiscardHandler))
	}()
	t.Cleanup(func() { cancel(); <-done })
	deadline := time.Now().Add(10 * time.Second)
	for {
		w, err := s.Watch(ctx, "/ns/", storage.ListOptions{Recursive: true, ResourceVersion: created.ResourceVersion})
		if storage.IsExpired(err) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		w.Stop()
		if time.Now().After(deadline) {
			t.Fatal("a watch from before the compactor's revision is not 410 Gone after 10s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	err := s.GetList(ctx, "/ns/", storage.ListOptions{Recursive: true, ResourceVersion: created.ResourceVersion,
		ResourceVersionMatch: metav1.ResourceVersionMatchExact}, &testapi.WidgetList{})
	if !storage.IsExpired(err) {
		t.Errorf("exact list at a compacted revision: %v, want Expired", err)
	}
	got := &testapi.Widget{}
	if err := s.Get(ctx, "/ns/a", storage.GetOptions{}, got); err != nil || got.Spec.Size != 2 {
		t.Errorf("Get after compaction: %v, %+v", err, got.Spec)
	}
	// A revision not reached yet is "Too large resource version", never an older state.
	err = s.GetList(ctx, "/ns/", storage.ListOptions{Recursive: true, ResourceVersion: "1000000",
		ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan}, &testapi.WidgetList{})
	if !storage.IsResourceVersionTooLarge(err) {
		t.Errorf("list not older than a future revision: %v, want Too large resource version", err)
	}
}

// TestNotifyWakesOtherServers: a write through one Store reaches the watches of another on
// the same table (another server) at once, through LISTEN/NOTIFY, not at the other's next
// poll (a minute here).
func TestNotifyWakesOtherServers(t *testing.T) {
	t.Parallel()
	pg := pgtest.Start(t)
	writer := newStore(t, open(t, pg.URL("postgres")), "widgets")
	reader := newStoreWith(t, sqlstore.Config{DB: open(t, pg.URL("postgres")), Table: "widgets", PollInterval: time.Minute})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	w, err := reader.Watch(ctx, "/ns/", storage.ListOptions{Recursive: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	for _, name := range []string{"a", "b", "c"} {
		obj := &testapi.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}}
		if err := writer.Create(ctx, "/ns/"+name, obj, &testapi.Widget{}); err != nil {
			t.Fatal(err)
		}
		select {
		case ev := <-w.ResultChan():
			if got, ok := ev.Object.(*testapi.Widget); ev.Type != watch.Added || !ok || got.Name != name {
				t.Fatalf("event %s %#v, want ADDED %s", ev.Type, ev.Object, name)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("the other server's watch did not see %s within 5s (its poll is a minute away)", name)
		}
	}
}
