package sqlstore_test

import (
	"context"
	"database/sql"
	"fmt"
	"sync/atomic"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"

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
