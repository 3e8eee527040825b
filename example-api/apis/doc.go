// Package apis holds the example API's groups; `go generate ./...` regenerates every
// zz_generated file below it.
package apis

//go:generate go tool apigen generate ./...
