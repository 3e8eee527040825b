package install

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql's "pgx" driver

	"github.com/apigen-dev/apigen/example-api/storage/sqlstore"
	"github.com/apigen-dev/apigen/runtime/registry"
	"github.com/apigen-dev/apigen/runtime/storage"
)

// BackupRecordsDSN is the PostgreSQL URL (libpq's, e.g.
// "postgres://user@127.0.0.1:5432/db?sslmode=disable") of the database that keeps
// BackupRecords, in the table backup_records. example-apiserver sets it from its
// --backup-records-dsn flag (app.Flags). Empty: BackupRecords are kept in the server's own
// storage (etcd), and a log line says so, so that the quick start runs without PostgreSQL.
var BackupRecordsDSN string

// BackupRecordsCompactionInterval is how often the backup records' change log is compacted
// (sqlstore.RunCompactor), as --etcd-compaction-interval compacts etcd.
var BackupRecordsCompactionInterval = 5 * time.Minute

// newBackupRecordStorage returns the storage of backuprecords.db.example.com
// (+apigen:storage=interface): sqlstore's table backup_records in the database at
// BackupRecordsDSN, or, without one, the server's own storage. Errors: the database cannot
// be opened or its tables created (the server does not start).
func newBackupRecordStorage(config registry.UserStorageConfig) (storage.Interface, error) {
	if BackupRecordsDSN == "" {
		config.Logger.Info("no --backup-records-dsn: backuprecords.db.example.com are kept in etcd")
		return config.Default()
	}
	db, err := sql.Open("pgx", BackupRecordsDSN)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := sqlstore.New(ctx, sqlstore.Config{DB: db, Table: "backup_records", Codec: config.Codec,
		NewFunc: config.NewFunc, Resource: config.Resource})
	if err != nil {
		return nil, errors.Join(err, db.Close())
	}
	compact, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		st.RunCompactor(compact, BackupRecordsCompactionInterval, config.Logger)
	}()
	config.Logger.Info("backuprecords.db.example.com are kept in PostgreSQL", "table", "backup_records")
	return &closingStore{Store: st, close: func() error {
		stop()
		<-done
		_ = st.Close() // its listener, before the database
		if err := db.Close(); err != nil {
			return fmt.Errorf("cannot close the database of backuprecords.db.example.com: %w", err)
		}
		return nil
	}}, nil
}

// closingStore is a sqlstore.Store that, as an io.Closer, the server closes at shutdown:
// its compactor and listener stop and its database closes.
type closingStore struct {
	*sqlstore.Store
	close func() error
}

// Close stops the compactor and the listener and closes the database.
func (s *closingStore) Close() error { return s.close() }
