// Package e2e holds the example API's end-to-end tests: they build example-apiserver, start it
// on an embedded etcd in a temp dir (or, for the fault and informer tests, on an etcd the test
// runs itself and can stop, restart and compact), and drive it over real HTTP with
// /usr/bin/kubectl and client-go's dynamic client and informers. `go test -short` skips them.
package e2e
