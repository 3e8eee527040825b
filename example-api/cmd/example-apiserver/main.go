// Command example-apiserver serves the db.example.com API (Databases, DatabaseClasses,
// Backups) on an embedded etcd, or on an etcd cluster given with --etcd-servers.
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
)

func main() {
	// The example's admission plugins, off by default:
	// --enable-admission-plugins=DatabaseEngineLabel,DatabaseQuota.
	if err := dbadmission.Register(app.AdmissionPlugins); err != nil {
		fmt.Fprintln(os.Stderr, "example-apiserver:", err)
		os.Exit(1)
	}
	os.Exit(app.Main("example-apiserver", os.Args[1:], os.Stdout, os.Stderr, dbinstall.NewAPIGroupInfo))
}
