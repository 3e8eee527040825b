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

// newStore returns a Store of widgets in table, over db.
func newStore(t *testing.T, db *sql.DB, table string) *sqlstore.Store {
	t.Helper()
	s, err := sqlstore.New(context.Background(), sqlstore.Config{DB: db, Table: table, Codec: testapi.Codec(),
		NewFunc: testapi.NewWidget, Resource: testapi.Resource})
	if err != nil {
		t.Fatal(err)
	}
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
