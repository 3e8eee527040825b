// Package version reports the version of a generated API server, as kube-apiserver's /version
// endpoint does.
//
// The version comes, in order of precedence, from the GitVersion variable (set at link time with
// -ldflags "-X github.com/apigen-dev/apigen/runtime/version.GitVersion=v1.2.3"), from the main
// module's version in the binary's build information (set by `go install module@version`), or
// from the fallback "v0.1.0-dev". Whatever the source, Get returns a semantic version with a
// leading "v" that `kubectl version` parses.
package version
