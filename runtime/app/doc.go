// Package app is what a generated API server's main calls:
//
//	func main() {
//		os.Exit(app.Main("example-apiserver", os.Args[1:], os.Stdout, os.Stderr, dbinstall.NewAPIGroupInfo))
//	}
//
// Main parses kube-apiserver-named flags, starts an embedded single-member etcd under
// --data-dir (or connects to --etcd-servers), builds every API group over one shared scheme
// and an etcd-backed StorageFactory, serves them with runtime/server, writes a kubeconfig for
// kubectl to <data-dir>/kubeconfig, and prints one readiness line to stdout. SIGINT or SIGTERM
// shut it down gracefully.
//
// Serving is plain HTTP on a loopback address: TLS, authentication and authorization come
// with later issues, so a non-loopback --bind-address is refused.
package app
