// Command example-apiserver serves the db.example.com API (Databases, DatabaseClasses,
// Backups) on an embedded etcd, or on an etcd cluster given with --etcd-servers.
//
//	go run ./example-api/cmd/example-apiserver
//	kubectl --kubeconfig apiserver-data/kubeconfig get databases
package main

import (
	"os"

	dbinstall "github.com/apigen-dev/apigen/example-api/apis/db/install"
	"github.com/apigen-dev/apigen/runtime/app"
)

func main() {
	os.Exit(app.Main("example-apiserver", os.Args[1:], os.Stdout, os.Stderr, dbinstall.NewAPIGroupInfo))
}
