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

// TestStorageVersionOfAndHubOf: a kind's storage version is the version whose kind has
// Storage, else StorageVersion when it has the kind, else the most preferred that has it; in a
// group without an internal package its hub is the version whose root type has Hub, else its
// storage version; with an internal package the hub package holds every kind.
func TestStorageVersionOfAndHubOf(t *testing.T) {
	kind := func(name string, storage bool, methods ...string) *Kind {
		typ := &Type{Name: TypeName{Name: name}, Methods: map[string]bool{}}
		for _, m := range methods {
			typ.Methods[m] = true
		}
		return &Kind{Name: name, Type: typ, Storage: storage}
	}
	v1 := &Version{Name: "v1", Package: &Package{Name: "v1"}, Kinds: []*Kind{kind("A", false), kind("B", false), kind("C", false)}}
	beta := &Version{Name: "v1beta1", Package: &Package{Name: "v1beta1"}, Kinds: []*Kind{kind("A", true), kind("B", false, "Hub"), kind("D", false)}}
	g := &Group{Hub: v1.Package, HubIsVersion: true, Versions: []*Version{v1, beta}, StorageVersion: v1}
	got := map[string]string{}
	for _, n := range []string{"A", "B", "C", "D", "E"} {
		name := func(v *Version) string {
			if v == nil {
				return "-"
			}
			return v.Name
		}
		got[n] = name(g.StorageVersionOf(n)) + " " + name(g.HubOf(n))
	}
	want := map[string]string{"A": "v1beta1 v1beta1", "B": "v1 v1beta1", "C": "v1 v1", "D": "v1beta1 v1beta1", "E": "- -"}
	for n, w := range want {
		if got[n] != w {
			t.Errorf("kind %s: storage and hub %q, want %q", n, got[n], w)
		}
	}
	if p := g.ObjectPackage("B"); p != beta.Package {
		t.Errorf("ObjectPackage(B) = %v, want v1beta1's", p)
	}
	hub := &Package{Name: "internal"}
	g.Hub, g.HubIsVersion = hub, false
	if g.HubOf("A") != nil || g.ObjectPackage("A") != hub {
		t.Error("with an internal package, HubOf must be nil and ObjectPackage the internal package")
	}
}
