// Package runtime is the root of apigen's runtime: the library that generated API servers
// link against. Its subpackages are storage (storage.Interface, etcd3, embedded etcd),
// registry (the generic Store), rest (the verb interfaces), endpoints (go-restful routes and
// handlers), discovery, openapi, server (the delegation chain) and app (a server's main).
//
// The runtime never imports apigen's generators, the example API, or the code-generation
// libraries (jennifer, gengo, go/packages); imports_test.go enforces it.
package runtime
