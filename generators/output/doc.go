// Package output writes, verifies and cleans the files generators return.
//
// Generators are pure functions returning map[absolute path][]byte (see emit.Generator);
// this package is the only place that touches the disk for them, as sqlc's "generate" and
// "diff" share one file set:
//
//   - Write writes every file whose bytes changed (atomically, via a temporary file and a
//     rename) and deletes stale zz_generated.*.go files in the directories apigen owns that
//     no generator produced this run, and stale generated files (those beginning with
//     emit.Header) at any depth of the trees it owns (Tree: the generated clients'
//     pkg/generated, laid out with client-gen's file names), and stale generated files among
//     those an owned pattern matches (Matching: a group's CustomResourceDefinitions,
//     <root>/config/crd/<group>_*.yaml, and samples, <root>/config/samples/generated/<group>_*.yaml,
//     which begin with emit.YAMLHeader); Owned lists all
//     three for an API. Only Go files become tombstones under go generate (Removal);
//   - Diff compares the same file set with the disk without writing and returns a unified
//     diff for every stale, missing or extra file, for `apigen verify`.
//
// Both work on an FS: Disk for real runs and MemFS, an in-memory sink, for tests.
package output
