// Command apigen generates Kubernetes-style API servers from marker-annotated Go types.
//
//	apigen generate [packages]   write every zz_generated.*.go file (default ./...)
//	apigen verify [packages]     exit 1 with unified diffs when a generated file is stale
//	apigen version               print the version
//
// The command line lives in package github.com/apigen-dev/apigen/cmd/apigen/cli so tests
// can run it in-process; main only passes os.Args to cli.Run and exits with its code.
package main
