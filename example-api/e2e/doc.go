// Package e2e holds the example API's end-to-end tests: they build example-apiserver, start it
// on an embedded etcd in a temp dir, and drive it over real HTTP with /usr/bin/kubectl and
// client-go's dynamic client. `go test -short` skips them.
package e2e
