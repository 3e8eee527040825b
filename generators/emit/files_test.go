package emit

import (
	"errors"
	"strings"
	"testing"

	"github.com/apigen-dev/apigen/generators/model"
)

// TestFiles checks what Result returns: the files; else the reported problems, all of them;
// a failure before both.
func TestFiles(t *testing.T) {
	var fs Files
	if got, err := fs.Result(); err != nil || got == nil || len(got) != 0 {
		t.Fatalf("empty Files: Result() = %v, %v; want an empty map", got, err)
	}
	fs.Add("/out/a/zz_generated.x.go", NewFile("example.com/a", "a", nil), "Package a is a test.")
	fs.Put("/out/b/zz_generated.x.go", []byte("package b\n"))
	got, err := fs.Result()
	if err != nil || len(got) != 2 || !strings.Contains(string(got["/out/a/zz_generated.x.go"]), "package a") {
		t.Fatalf("Result() = %v, %v; want the two files", got, err)
	}

	pos := func(line int) model.Position { return model.Position{File: "types.go", Line: line} }
	fs.Report(model.Diagnostic{Pos: pos(7), Message: "second"}, model.Diagnostic{Pos: pos(3), Message: "first"})
	if _, err := fs.Result(); err == nil || !strings.Contains(err.Error(), "types.go:3") || !strings.Contains(err.Error(), "types.go:7") {
		t.Fatalf("after Report: Result() error = %v; want both diagnostics", err)
	}

	boom := errors.New("boom")
	fs.Fail(boom)
	fs.Fail(errors.New("later"))
	if !fs.Failed() {
		t.Error("Failed() = false after Fail")
	}
	if got, err := fs.Result(); got != nil || !errors.Is(err, boom) {
		t.Fatalf("after Fail: Result() = %v, %v; want the first failure", got, err)
	}
}

// TestFilesWarnings checks that warnings alone keep the files: Result returns them with the
// warnings, and drops them once an error is reported.
func TestFilesWarnings(t *testing.T) {
	var fs Files
	fs.Put("/out/a.yaml", []byte("a: 1\n"))
	warn := model.Diagnostic{Pos: model.Position{File: "types.go", Line: 4}, Message: "careful", Warning: true}
	fs.Report(warn)
	got, err := fs.Result()
	var ds model.Diagnostics
	if !errors.As(err, &ds) || ds.HasErrors() || len(got) != 1 {
		t.Fatalf("with a warning: Result() = %v, %v; want the file and the warning", got, err)
	}
	fs.Report(model.Diagnostic{Pos: warn.Pos, Message: "wrong"})
	if got, err := fs.Result(); got != nil || err == nil {
		t.Fatalf("with an error: Result() = %v, %v; want no files and the error", got, err)
	}
}
