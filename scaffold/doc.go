// Package scaffold renders the templates of package templates into an API repository for
// `apigen init` and `apigen create api`.
//
// Every command first computes a Plan: the full content of every file it would create or
// rewrite, and the files it would delete, checked against the disk. A file that exists with
// the same content is left alone, so running a command twice changes nothing; a file the
// command would create that exists with other content, or a kind that exists with other
// options, is a clash, and Plan's constructor returns every clash in one error before
// anything is written. Only then does Apply write the files.
//
// Layout of a repository (module M, server name N):
//
//	go.mod Makefile README.md .gitignore .github/workflows/ci.yaml
//	apis/doc.go                              //go:generate go tool apigen generate ./...
//	apis/<g>/<version>/doc.go                +groupName, +k8s:conversion-gen=<hub> when a hub exists
//	apis/<g>/<version>/<kind>_types.go       the kind, its List, Spec and Status
//	apis/<g>/doc.go, <kind>_types.go         the hub, once the group has two versions
//	config/samples/                          your own samples; apigen generate writes generated/<group>_<version>_<kind>.yaml
//	cmd/N-apiserver/main.go, main_test.go    the server and its end-to-end test
//	cmd/N-apiserver/groups.go                the install package of every group (rewritten)
//	config/deploy/Dockerfile, kustomization.yaml, *.yaml
//	                                         the server in a cluster, as an aggregated API server
//	config/deploy/apis.yaml                  an APIService per served group version (rewritten)
//
// <g> is the group's first DNS label ("shop" for shop.example.com). A group with one version
// uses it as hub, so its install package is apis/<g>/<version>/install; once it has a hub the
// install package is apis/<g>/install (generators/install writes <hub>/install), and create
// api deletes the old install directory's generated files.
package scaffold
