package model

import (
	"fmt"
	"sort"
	"strings"
)

// Position is a place in a source file. File is the path as the user would type it
// (relative to the working directory when below it).
type Position struct {
	File string
	Line int
	Col  int
}

// String formats the position as "file:line:col", or "file:line" when Col is 0.
func (p Position) String() string {
	if p.Col == 0 {
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// Diagnostic is one positioned problem found while loading or generating.
type Diagnostic struct {
	Pos     Position
	Message string
	// Warning marks a diagnostic that does not fail the run.
	Warning bool
}

// String formats the diagnostic as "file:line:col: message", marking warnings.
func (d Diagnostic) String() string {
	if d.Warning {
		return d.Pos.String() + ": warning: " + d.Message
	}
	return d.Pos.String() + ": " + d.Message
}

// Diagnostics is every problem of a run; as an error it prints one per line, sorted by position.
type Diagnostics []Diagnostic

// Error formats the diagnostics compiler-style, sorted by file, line and column.
func (ds Diagnostics) Error() string {
	sorted := append(Diagnostics(nil), ds...)
	sorted.Sort()
	lines := make([]string, len(sorted))
	for i, d := range sorted {
		lines[i] = d.String()
	}
	return strings.Join(lines, "\n")
}

// Sort orders the diagnostics by file, line, column and message.
func (ds Diagnostics) Sort() {
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i].Pos, ds[j].Pos
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Col != b.Col {
			return a.Col < b.Col
		}
		return ds[i].Message < ds[j].Message
	})
}

// Err returns nil when ds is empty, else ds sorted, as the error a generator returns.
func (ds Diagnostics) Err() error {
	if len(ds) == 0 {
		return nil
	}
	ds.Sort()
	return ds
}

// HasErrors reports whether any diagnostic is not a warning.
func (ds Diagnostics) HasErrors() bool {
	for _, d := range ds {
		if !d.Warning {
			return true
		}
	}
	return false
}
