package output

import (
	"bytes"
	"go/parser"
	"go/token"
	"os"
)

// Removal says how Write gets rid of a stale generated file.
type Removal int

const (
	// Delete deletes stale files.
	Delete Removal = iota
	// Tombstone is for runs under go generate: go generate lists every file of the packages a
	// pattern matches before it runs the first directive, then reads each in turn, and stops
	// with "generate: open ...: no such file or directory" at one apigen deleted. So a stale
	// file is replaced by a tombstone, a file the build ignores (//go:build ignore) that
	// still has its package clause; a tombstone is in no later go generate's list, so the
	// next run deletes it safely. Diff does not count tombstones.
	Tombstone
)

// RemovalFor returns Tombstone when the process was started by go generate (which sets
// $GOFILE and $GOPACKAGE for its commands) and Delete otherwise.
func RemovalFor(getenv func(string) string) Removal {
	if getenv("GOFILE") != "" && getenv("GOPACKAGE") != "" {
		return Tombstone
	}
	return Delete
}

// RemovalOfProcess is RemovalFor of this process's environment.
func RemovalOfProcess() Removal { return RemovalFor(os.Getenv) }

// tombstoneNote marks a tombstone; it follows the generated-file header.
const tombstoneNote = `// This file is no longer generated. apigen, run by go generate, could not delete it: go
// generate had listed it and would have failed reading it. The build ignores it; the next
// apigen generate deletes it.`

// tombstoneOf returns the tombstone of a generated file whose content was old: the header,
// //go:build ignore, the note, and old's package clause ("package ignored" when old has none).
func tombstoneOf(old []byte) []byte {
	name := "ignored"
	if f, err := parser.ParseFile(token.NewFileSet(), "", old, parser.PackageClauseOnly); err == nil {
		name = f.Name.Name
	}
	var b bytes.Buffer
	b.WriteString(headerLine)
	b.WriteString("\n//go:build ignore\n\n")
	b.WriteString(tombstoneNote)
	b.WriteString("\n\npackage " + name + "\n")
	return b.Bytes()
}

// isTombstone reports whether b is a tombstone tombstoneOf wrote.
func isTombstone(b []byte) bool {
	return bytes.HasPrefix(b, []byte(headerLine)) && bytes.Contains(b, []byte(tombstoneNote))
}
