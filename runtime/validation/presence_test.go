package validation

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apigen-dev/apigen/runtime/request"
)

func TestPathElements(t *testing.T) {
	for path, want := range map[string][]string{
		"spec":                          {"spec"},
		"spec.rules[2].matches[0].path": {"spec", "rules", "[2]", "matches", "[0]", "path"},
		"spec.params[a.b].value":        {"spec", "params", "[a.b]", "value"},
		"data[k[1]]":                    {"data", "[k[1]]"},
		"":                              nil,
	} {
		if diff := cmp.Diff(want, pathElements(path)); diff != "" {
			t.Errorf("pathElements(%q) (-want +got):\n%s", path, diff)
		}
	}
}

func TestKeyPresent(t *testing.T) {
	gvk := schema.GroupVersionKind{Group: "db.example.com", Version: "v1", Kind: "Database"}
	doc := []byte(`{"spec": {"engine": "", "size": 0, "backup": null, "template": {},
		"rules": [{"name": "a"}, {"path": ""}], "params": {"a.b": {"value": ""}}}, "status": {}}`)
	ctx := request.WithDocument(context.Background(), request.NewDocument(gvk, doc))
	spec := field.NewPath("spec")
	tests := []struct {
		path    *field.Path
		written bool // the answer without a document
		want    bool
	}{
		{spec.Child("engine"), false, true},                           // "" sent: present
		{spec.Child("size"), false, true},                             // 0 sent
		{spec.Child("template"), false, true},                         // {} sent
		{spec.Child("version"), true, false},                          // left out
		{spec.Child("backup"), true, false},                           // null: pruned, as the API server does
		{spec.Child("rules").Index(1).Child("path"), false, true},     // through a list
		{spec.Child("rules").Index(0).Child("path"), true, false},     // left out of an item
		{spec.Child("rules").Index(5).Child("path"), true, true},      // no such item: written
		{spec.Child("params").Key("a.b").Child("value"), false, true}, // through a map key with a dot
		{spec.Child("engine").Child("x"), true, true},                 // through a string: written
		{field.NewPath("status", "phase"), true, false},
		{field.NewPath("metadata", "name"), true, false}, // under a missing key
	}
	for _, tt := range tests {
		validated := withValidatedDocument(ctx, gvk)
		if got := KeyPresent(validated, tt.path, tt.written); got != tt.want {
			t.Errorf("KeyPresent(%s) = %v, want %v", tt.path, got, tt.want)
		}
		// Without a document of the validated version, the answer is written.
		other := withValidatedDocument(ctx, gvk.GroupVersion().WithKind("Backup"))
		for _, c := range []context.Context{context.Background(), withValidatedDocument(context.Background(), gvk), other} {
			if got := KeyPresent(c, tt.path, tt.written); got != tt.written {
				t.Errorf("KeyPresent(%s) without the document = %v, want %v", tt.path, got, tt.written)
			}
		}
	}
}

func TestIsZero(t *testing.T) {
	type inner struct {
		A string
		B []int
	}
	if !IsZero(&inner{}) || IsZero(&inner{A: "x"}) || IsZero(&inner{B: []int{}}) {
		t.Error("IsZero disagrees with reflect.Value.IsZero")
	}
}
