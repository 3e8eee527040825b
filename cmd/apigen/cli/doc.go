// Package cli is apigen's command line, kept out of package main so tests can run it
// in-process: Run(args, stdout, stderr) returns the exit code main passes to os.Exit.
//
// Commands:
//
//	apigen init <module-path>    write a new API repository (package scaffold, templates/)
//	apigen create api --group G --version V --kind K   add a kind or a version to it
//	apigen generate [packages]   load once, run every generator, write zz_generated.*.go files, clients and CRDs
//	apigen verify [packages]     the same, but diff against the disk instead of writing (CI)
//	apigen markers [filter]      list every marker: usage, where it goes, owner generator, help
//	apigen version               print apigen's version
//
// Packages are `go list` patterns relative to the working directory (default ./...).
// Diagnostics of a run are all collected and printed together, sorted, compiler-style
// (file:line:col: message); any error diagnostic exits 1 with nothing written.
//
// Exit codes: 0 success; 1 diagnostics, stale files or I/O failures; 2 usage errors.
package cli
