package model

import "testing"

func TestDiagnosticsErrorIsSorted(t *testing.T) {
	ds := Diagnostics{
		{Pos: Position{File: "b.go", Line: 1}, Message: "later file"},
		{Pos: Position{File: "a.go", Line: 9, Col: 2}, Message: "second"},
		{Pos: Position{File: "a.go", Line: 3, Col: 7}, Message: "first", Warning: true},
	}
	want := "a.go:3:7: warning: first\na.go:9:2: second\nb.go:1: later file"
	if got := ds.Error(); got != want {
		t.Errorf("Error() =\n%s\nwant\n%s", got, want)
	}
	if ds[0].Message != "later file" {
		t.Error("Error() reordered the receiver")
	}
	if !ds.HasErrors() || (Diagnostics{ds[2]}).HasErrors() {
		t.Error("HasErrors must be true with an error and false with only warnings")
	}
}

func TestTypeRefString(t *testing.T) {
	cond := &Type{Name: TypeName{Package: "k8s.io/apimachinery/pkg/apis/meta/v1", Name: "Condition"}}
	ref := &TypeRef{Kind: Pointer, Elem: &TypeRef{Kind: Map, Key: &TypeRef{Kind: Basic, Basic: "string"},
		Elem: &TypeRef{Kind: Slice, Elem: &TypeRef{Kind: Named, Named: cond}}}}
	if got, want := ref.String(), "*map[string][]k8s.io/apimachinery/pkg/apis/meta/v1.Condition"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

func TestDiagnosticsErr(t *testing.T) {
	if err := (Diagnostics{}).Err(); err != nil {
		t.Errorf("empty Diagnostics.Err() = %v, want nil", err)
	}
	ds := Diagnostics{{Pos: Position{File: "b.go", Line: 1}, Message: "b"}, {Pos: Position{File: "a.go", Line: 1}, Message: "a"}}
	err := ds.Err()
	got, ok := err.(Diagnostics)
	if !ok || len(got) != 2 || got[0].Pos.File != "a.go" {
		t.Errorf("Err() = %#v, want the two diagnostics sorted by position", err)
	}
}
