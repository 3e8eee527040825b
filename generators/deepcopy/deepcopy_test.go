package deepcopy

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apigen-dev/apigen/generators/internal/golden"
	"github.com/apigen-dev/apigen/generators/model"
)

const (
	metav1Path   = "k8s.io/apimachinery/pkg/apis/meta/v1"
	resourcePath = "k8s.io/apimachinery/pkg/api/resource"
	basicPath    = "github.com/apigen-dev/apigen/generators/deepcopy/testdata/basic"
)

func basicRef(name string) *model.TypeRef { return &model.TypeRef{Kind: model.Basic, Basic: name} }
func named(t *model.Type) *model.TypeRef  { return &model.TypeRef{Kind: model.Named, Named: t} }
func ptr(r *model.TypeRef) *model.TypeRef { return &model.TypeRef{Kind: model.Pointer, Elem: r} }
func slice(r *model.TypeRef) *model.TypeRef {
	return &model.TypeRef{Kind: model.Slice, Elem: r}
}
func array(n int64, r *model.TypeRef) *model.TypeRef {
	return &model.TypeRef{Kind: model.Array, Len: n, Elem: r}
}
func mapOf(k, v *model.TypeRef) *model.TypeRef {
	return &model.TypeRef{Kind: model.Map, Key: k, Elem: v}
}

func field(name string, ref *model.TypeRef, line int) *model.Field {
	return &model.Field{Name: name, Type: ref, JSONName: strings.ToLower(name[:1]) + name[1:],
		Pos: model.Position{File: "testdata/basic/types.go", Line: line, Col: 2}}
}

func embedded(t *model.Type) *model.Field {
	return &model.Field{Name: t.Name.Name, Type: named(t), Embedded: true, Inline: true}
}

func external(pkg, name string, kind model.TypeKind, methods ...string) *model.Type {
	t := &model.Type{Name: model.TypeName{Package: pkg, Name: name}, Kind: kind, Methods: map[string]bool{}}
	for _, m := range methods {
		t.Methods[m] = true
	}
	return t
}

func local(name string, kind model.TypeKind, fields ...*model.Field) *model.Type {
	return &model.Type{Name: model.TypeName{Package: basicPath, Name: name}, Kind: kind, Fields: fields, Local: true}
}

// basicAPI is one group whose single version (also its hub) declares every field shape
// deepcopy handles; testdata/basic/types.go declares the same types in Go.
func basicAPI(t *testing.T) *model.API {
	typeMeta := external(metav1Path, "TypeMeta", model.Struct)
	typeMeta.Fields = []*model.Field{field("Kind", basicRef("string"), 0), field("APIVersion", basicRef("string"), 0)}
	objectMeta := external(metav1Path, "ObjectMeta", model.Struct, "DeepCopyInto", "DeepCopy")
	listMeta := external(metav1Path, "ListMeta", model.Struct, "DeepCopyInto", "DeepCopy")
	mtime := external(metav1Path, "Time", model.Struct, "DeepCopyInto", "DeepCopy")
	condition := external(metav1Path, "Condition", model.Struct, "DeepCopyInto", "DeepCopy")
	quantity := external(resourcePath, "Quantity", model.Struct, "DeepCopyInto", "DeepCopy")

	engine := local("Engine", model.Basic)
	engine.Underlying = basicRef("string")
	names := local("Names", model.Slice)
	names.Underlying = slice(basicRef("string"))
	port := local("Port", model.Struct, field("Name", basicRef("string"), 10), field("Number", basicRef("int32"), 11))
	backup := local("Backup", model.Struct, field("Schedule", basicRef("string"), 14), field("Last", ptr(named(mtime)), 15))
	settings := local("Settings", model.Map)
	settings.Underlying = mapOf(basicRef("string"), named(backup))
	spec := local("WidgetSpec", model.Struct,
		field("Engine", named(engine), 20),
		field("Replicas", ptr(basicRef("int32")), 21),
		field("Size", named(quantity), 22),
		field("Labels", mapOf(basicRef("string"), basicRef("string")), 23),
		field("Tags", slice(basicRef("string")), 24),
		field("Ports", slice(named(port)), 25),
		field("Backup", ptr(named(backup)), 26),
		field("Extra", mapOf(basicRef("string"), slice(basicRef("string"))), 27),
		field("ByName", mapOf(basicRef("string"), named(backup)), 28),
		field("Refs", slice(ptr(named(port))), 29),
		field("Names", named(names), 30),
		field("Grid", array(2, basicRef("int32")), 31),
		field("Times", array(2, named(mtime)), 32),
		field("Optional", ptr(slice(basicRef("string"))), 33),
		field("Settings", named(settings), 34),
		field("Main", named(port), 35),
		field("Backups", slice(named(backup)), 36),
	)
	status := local("WidgetStatus", model.Struct,
		field("Conditions", slice(named(condition)), 40),
		field("Since", named(mtime), 41),
	)
	widget := local("Widget", model.Struct, embedded(typeMeta), embedded(objectMeta),
		field("Spec", named(spec), 45), field("Status", named(status), 46))
	widgetList := local("WidgetList", model.Struct, embedded(typeMeta), embedded(listMeta),
		field("Items", slice(named(widget)), 50))
	custom := local("Custom", model.Struct, embedded(typeMeta), field("Data", slice(basicRef("byte")), 55))
	custom.Methods = map[string]bool{"DeepCopyInto": true}
	custom.Markers.Root = true

	pkg := &model.Package{Path: basicPath, Dir: testdataDir(t, "basic"), Name: "basic",
		Types: []*model.Type{backup, custom, engine, names, port, settings, widget, widgetList, spec, status}}
	v := &model.Version{Name: "v1", Package: pkg, Kinds: []*model.Kind{{Name: "Widget", Type: widget, List: widgetList}}}
	return &model.API{
		Groups:   []*model.Group{{Name: "test.example.com", Hub: pkg, HubIsVersion: true, Versions: []*model.Version{v}, StorageVersion: v}},
		Packages: []*model.Package{pkg},
	}
}

func testdataDir(t *testing.T, name string) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestGenerateGolden(t *testing.T) {
	files, err := New().Generate(basicAPI(t))
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	golden.CheckInPlace(t, files, filepath.Join(testdataDir(t, "basic"), FileName))
}

func TestGenerateDeterministic(t *testing.T) {
	first, err := New().Generate(basicAPI(t))
	if err != nil {
		t.Fatal(err)
	}
	second, err := New().Generate(basicAPI(t))
	if err != nil {
		t.Fatal(err)
	}
	for path, b := range first {
		if !bytes.Equal(b, second[path]) {
			t.Errorf("%s differs between two runs", path)
		}
	}
}

// TestGoldenBehaves compiles the golden file with testdata/basic/types.go and runs the
// package's own test, which fills every type at random, deep-copies it and checks that the
// copy is equal and shares no memory with the original.
func TestGoldenBehaves(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on testdata/basic")
	}
	cmd := exec.Command("go", "test", "-count=1", "./testdata/basic")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go test ./testdata/basic: %v\n%s", err, out)
	}
}

func TestGenerateDiagnostics(t *testing.T) {
	api := basicAPI(t)
	pkg := api.Packages[0]
	raw := external("example.com/ext", "Raw", model.Struct)
	raw.Fields = []*model.Field{field("Data", slice(basicRef("byte")), 0)}
	bad := local("Bad", model.Struct,
		field("Any", &model.TypeRef{Kind: model.Interface}, 60),
		field("Raw", named(raw), 61),
		field("Anys", slice(&model.TypeRef{Kind: model.Interface}), 62),
	)
	pkg.Types = append(pkg.Types, bad)
	_, err := New().Generate(api)
	diags, ok := err.(model.Diagnostics)
	if !ok {
		t.Fatalf("Generate error = %v (%T), want model.Diagnostics", err, err)
	}
	want := []string{
		"testdata/basic/types.go:60:2: cannot generate deepcopy for field Bad.Any (interface{}): an interface value cannot be deep-copied",
		"testdata/basic/types.go:61:2: cannot generate deepcopy for field Bad.Raw (example.com/ext.Raw): external type example.com/ext.Raw holds pointers",
		"testdata/basic/types.go:62:2: cannot generate deepcopy for field Bad.Anys (interface{}): an interface value cannot be deep-copied",
	}
	if len(diags) != len(want) {
		t.Fatalf("got %d diagnostics, want %d:\n%v", len(diags), len(want), err)
	}
	for i, d := range diags {
		if !strings.HasPrefix(d.String(), want[i]) {
			t.Errorf("diagnostic %d = %q, want prefix %q", i, d.String(), want[i])
		}
	}
}
