package registry

import (
	"strings"
	"testing"
)

type pathInner struct {
	Count *int32 `json:"count,omitempty"`
	Small uint16 `json:"small"`
}

type pathEmbedded struct {
	Tier string `json:"tier"`
}

type pathObject struct {
	*pathEmbedded `json:",inline"`
	Spec          *pathInner `json:"spec,omitempty"`
	Flag          bool       `json:"flag"`
	Untagged      string
	Skipped       string `json:"-"`
}

func TestFieldPathGetAndAlloc(t *testing.T) {
	fp, err := compileFieldPath(&pathObject{}, ".spec.count")
	if err != nil {
		t.Fatal(err)
	}
	obj := &pathObject{}
	if _, ok := fp.get(obj, false); ok {
		t.Error("get through a nil pointer without alloc reported a value")
	}
	v, ok := fp.get(obj, true)
	if !ok || !v.CanSet() {
		t.Fatalf("get with alloc: ok=%v settable=%v", ok, v.CanSet())
	}
	v.SetInt(4)
	if obj.Spec == nil || obj.Spec.Count == nil || *obj.Spec.Count != 4 {
		t.Errorf("alloc did not set spec.count: %+v", obj.Spec)
	}
	if again, _ := compileFieldPath(&pathObject{}, ".spec.count"); again != fp {
		t.Error("compiled paths are not cached per type and path")
	}
}

func TestFieldPathScalars(t *testing.T) {
	obj := &pathObject{pathEmbedded: &pathEmbedded{Tier: "gold"}, Spec: &pathInner{Small: 7}, Flag: true, Untagged: "u"}
	for path, want := range map[string]string{"tier": "gold", "spec.small": "7", "flag": "true", "Untagged": "u"} {
		fp, err := compileFieldPath(obj, path)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		v, ok := fp.get(obj, false)
		if got := scalarString(v); !ok || got != want {
			t.Errorf("%s = %q (ok %v), want %q", path, got, ok, want)
		}
	}
	for path, want := range map[string]string{"Skipped": `has no field "Skipped"`, "flag.x": "is not an object", "spec.nope": `has no field "nope"`} {
		if _, err := compileFieldPath(obj, path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an error containing %q", path, err, want)
		}
	}
}
