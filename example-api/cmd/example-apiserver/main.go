// Command example-apiserver serves the db.example.com API (Databases, DatabaseClasses,
// Backups, BackupRecords) on an embedded etcd, on an etcd cluster (or kine endpoint) given
// with --etcd-servers, or with --storage-backend=kine-sqlite on kine over SQLite in process.
// BackupRecords are kept in the PostgreSQL table backup_records of --backup-records-dsn
// (+apigen:storage=interface, example-api/storage/sqlstore); without it, in etcd as the rest.
//
//	go run ./example-api/cmd/example-apiserver
//	kubectl --kubeconfig apiserver-data/kubeconfig get databases
package main

import (
	"fmt"
	"os"

	dbadmission "github.com/apigen-dev/apigen/example-api/admission"
	dbinstall "github.com/apigen-dev/apigen/example-api/apis/db/install"
	"github.com/apigen-dev/apigen/runtime/app"
	"github.com/apigen-dev/apigen/runtime/storage/kine"
)

func main() {
	// --storage-backend=kine-sqlite: kine on SQLite in <data-dir>/kine instead of the embedded etcd.
	app.StorageBackends["kine-sqlite"] = kine.EmbeddedSQLite
	// --backup-records-dsn: the PostgreSQL database of BackupRecords.
	app.Flags.StringVar(&dbinstall.BackupRecordsDSN, "backup-records-dsn", "",
		"PostgreSQL URL (postgres://user@host:port/db?sslmode=disable) of the database keeping backuprecords.db.example.com "+
			"in its table backup_records; empty keeps them in etcd")
	// The example's admission plugins, off by default:
	// --enable-admission-plugins=DatabaseEngineLabel,DatabaseQuota.
	if err := dbadmission.Register(app.AdmissionPlugins); err != nil {
		fmt.Fprintln(os.Stderr, "example-apiserver:", err)
		os.Exit(1)
	}
	os.Exit(app.Main("example-apiserver", os.Args[1:], os.Stdout, os.Stderr, dbinstall.NewAPIGroupInfo))
}
