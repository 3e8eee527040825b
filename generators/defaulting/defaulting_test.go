package defaulting

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
	v1Path       = "github.com/apigen-dev/apigen/generators/defaulting/testdata/widgets/v1"
	hubPath      = "github.com/apigen-dev/apigen/generators/defaulting/testdata/widgets"
)

func basicRef(name string) *model.TypeRef { return &model.TypeRef{Kind: model.Basic, Basic: name} }
func named(t *model.Type) *model.TypeRef  { return &model.TypeRef{Kind: model.Named, Named: t} }
func ptr(r *model.TypeRef) *model.TypeRef { return &model.TypeRef{Kind: model.Pointer, Elem: r} }
func slice(r *model.TypeRef) *model.TypeRef {
	return &model.TypeRef{Kind: model.Slice, Elem: r}
}
func mapOf(k, v *model.TypeRef) *model.TypeRef {
	return &model.TypeRef{Kind: model.Map, Key: k, Elem: v}
}

// field returns a field declared at line of testdata/widgets/v1/types.go, defaulted to def
// unless def is "".
func field(name string, ref *model.TypeRef, line int, def string) *model.Field {
	f := &model.Field{Name: name, Type: ref, Pos: model.Position{File: "testdata/widgets/v1/types.go", Line: line, Col: 2}}
	if def != "" {
		f.Markers.Default = &def
	}
	return f
}

func embedded(t *model.Type) *model.Field {
	return &model.Field{Name: t.Name.Name, Type: named(t), Embedded: true, Inline: true}
}

func external(pkg, name string, methods ...string) *model.Type {
	t := &model.Type{Name: model.TypeName{Package: pkg, Name: name}, Kind: model.Struct, Methods: map[string]bool{}}
	for _, m := range methods {
		t.Methods[m] = true
	}
	return t
}

func local(name string, kind model.TypeKind, fields ...*model.Field) *model.Type {
	return &model.Type{Name: model.TypeName{Package: v1Path, Name: name}, Kind: kind, Fields: fields, Local: true}
}

// widgetsAPI is a group with a hub (which gets no defaults file) and one version whose types
// carry every kind of default; testdata/widgets/v1/types.go declares them in Go.
func widgetsAPI(t *testing.T) *model.API {
	typeMeta, objectMeta, listMeta := external(metav1Path, "TypeMeta"), external(metav1Path, "ObjectMeta"), external(metav1Path, "ListMeta")
	quantity := external(resourcePath, "Quantity", "UnmarshalJSON", "DeepCopyInto")
	engine := local("Engine", model.Basic)
	engine.Underlying = basicRef("string")
	count := local("Count", model.Basic)
	count.Underlying = basicRef("int64")
	port := local("Port", model.Struct, field("Name", basicRef("string"), 10, ""), field("Protocol", basicRef("string"), 11, `"TCP"`))
	policy := local("BackupPolicy", model.Struct,
		field("RetentionDays", basicRef("int32"), 15, "7"),
		field("Enabled", basicRef("bool"), 16, "true"),
		field("Ratio", basicRef("float64"), 17, "0.5"))
	spec := local("WidgetSpec", model.Struct,
		field("Engine", named(engine), 20, `"postgres"`),
		field("Replicas", ptr(basicRef("int32")), 21, "1"),
		field("Size", named(quantity), 22, `"10Gi"`),
		field("Backup", ptr(named(policy)), 23, ""),
		field("Ports", slice(named(port)), 24, ""),
		field("ByName", mapOf(basicRef("string"), named(port)), 25, ""),
		field("Refs", mapOf(basicRef("string"), ptr(named(port))), 26, ""),
		field("Tags", slice(basicRef("string")), 27, `["a","b"]`),
		field("Labels", mapOf(basicRef("string"), basicRef("string")), 28, `{"app":"widget"}`),
		field("Count", ptr(named(count)), 29, "3"),
		field("Grid", slice(slice(named(port))), 30, ""),
		field("Policy", named(policy), 31, `{"retentionDays":1}`),
	)
	status := local("WidgetStatus", model.Struct, field("Phase", basicRef("string"), 35, ""))
	widget := local("Widget", model.Struct, embedded(typeMeta), embedded(objectMeta),
		field("Spec", named(spec), 40, ""), field("Status", named(status), 41, ""))
	widgetList := local("WidgetList", model.Struct, embedded(typeMeta), embedded(listMeta),
		field("Items", slice(named(widget)), 45, ""))
	gadget := local("Gadget", model.Struct, embedded(typeMeta), embedded(objectMeta), field("Size", basicRef("int32"), 50, ""))
	gadgetList := local("GadgetList", model.Struct, embedded(typeMeta), embedded(listMeta), field("Items", slice(named(gadget)), 55, ""))
	thing := local("Thing", model.Struct, embedded(typeMeta), embedded(objectMeta), field("Note", basicRef("string"), 60, ""))
	thingList := local("ThingList", model.Struct, embedded(typeMeta), embedded(listMeta), field("Items", slice(named(thing)), 65, ""))

	dir, err := filepath.Abs(filepath.Join("testdata", "widgets", "v1"))
	if err != nil {
		t.Fatal(err)
	}
	v1 := &model.Package{Path: v1Path, Dir: dir, Name: "v1",
		Types: []*model.Type{policy, count, engine, gadget, gadgetList, port, thing, thingList, widget, widgetList, spec, status},
		Funcs: map[string]model.Position{"SetDefaults_Widget": {}, "SetDefaults_Port": {}, "SetDefaults_Thing": {}}}
	hub := &model.Package{Path: hubPath, Dir: filepath.Dir(dir), Name: "widgets"}
	kinds := []*model.Kind{
		{Name: "Gadget", Type: gadget, List: gadgetList},
		{Name: "Thing", Type: thing, List: thingList},
		{Name: "Widget", Type: widget, List: widgetList},
	}
	v := &model.Version{Name: "v1", Package: v1, Kinds: kinds}
	return &model.API{
		Groups:   []*model.Group{{Name: "widgets.example.com", Hub: hub, Versions: []*model.Version{v}, StorageVersion: v}},
		Packages: []*model.Package{hub, v1},
	}
}

func TestGenerateGolden(t *testing.T) {
	files, err := New().Generate(widgetsAPI(t))
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	path, _ := filepath.Abs(filepath.Join("testdata", "widgets", "v1", FileName))
	golden.CheckInPlace(t, files, path)
}

func TestGenerateDeterministic(t *testing.T) {
	first, err := New().Generate(widgetsAPI(t))
	if err != nil {
		t.Fatal(err)
	}
	second, err := New().Generate(widgetsAPI(t))
	if err != nil {
		t.Fatal(err)
	}
	for path, b := range first {
		if !bytes.Equal(b, second[path]) {
			t.Errorf("%s differs between two runs", path)
		}
	}
}

// TestGoldenBehaves compiles the golden file with testdata/widgets/v1's hand-written types and
// runs that package's test, which defaults objects through a runtime.Scheme.
func TestGoldenBehaves(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on testdata/widgets/v1")
	}
	cmd := exec.Command("go", "test", "-count=1", "./testdata/widgets/v1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go test ./testdata/widgets/v1: %v\n%s", err, out)
	}
}

func TestEmptyRegisterDefaults(t *testing.T) {
	api := widgetsAPI(t)
	v := api.Groups[0].Versions[0]
	v.Kinds = v.Kinds[:1] // Gadget: no defaults anywhere
	files, err := New().Generate(api)
	if err != nil {
		t.Fatal(err)
	}
	got := string(files[filepath.Join(v.Package.Dir, FileName)])
	for _, want := range []string{"localSchemeBuilder.Register(RegisterDefaults)", "func RegisterDefaults(scheme *runtime.Scheme) error {\n\treturn nil\n}"} {
		if !strings.Contains(got, want) {
			t.Errorf("defaults file lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "SetObjectDefaults_") {
		t.Errorf("defaults file has a SetObjectDefaults_ function for a kind without defaults:\n%s", got)
	}
}

func TestInvalidDefaults(t *testing.T) {
	tests := []struct {
		name    string
		ref     *model.TypeRef
		def     string
		wantErr string // "" for a valid default
	}{
		{"string", basicRef("string"), `"x"`, ""},
		{"unquoted string", basicRef("string"), `postgres`, "not valid JSON"},
		{"number for string", basicRef("string"), `3`, "cannot unmarshal it into string"},
		{"int32", ptr(basicRef("int32")), `3`, ""},
		{"int32 overflow", basicRef("int32"), `3000000000`, "cannot unmarshal it into int32"},
		{"fraction for int", basicRef("int64"), `1.5`, "cannot unmarshal it into int64"},
		{"negative uint", basicRef("uint16"), `-1`, "cannot unmarshal it into uint16"},
		{"null", basicRef("bool"), `null`, "null is not a default"},
		{"bool", basicRef("bool"), `false`, ""},
		{"float", basicRef("float32"), `1e3`, ""},
		{"slice", slice(basicRef("string")), `["a"]`, ""},
		{"object for slice", slice(basicRef("string")), `{"a":1}`, "is a JSON array"},
		{"bytes", slice(basicRef("byte")), `"aGk="`, ""},
		{"map", mapOf(basicRef("string"), basicRef("int32")), `[1]`, "is a JSON object"},
		{"external struct", named(external(resourcePath, "Quantity")), `"1Gi"`, ""},
		{"local struct", named(local("Port", model.Struct)), `"TCP"`, "is a JSON object"},
		{"complex", basicRef("complex128"), `1`, "not supported"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkDefault(tt.ref, tt.def)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("checkDefault(%s, %s) = %v, want nil", tt.ref, tt.def, err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("checkDefault(%s, %s) = %v, want an error containing %q", tt.ref, tt.def, err, tt.wantErr)
			}
		})
	}
}

func TestGenerateDiagnostics(t *testing.T) {
	api := widgetsAPI(t)
	spec := api.Groups[0].Versions[0].Package.Type("WidgetSpec")
	spec.Field("Replicas").Markers.Default = ptrTo("one")
	spec.Field("Tags").Markers.Default = ptrTo(`"a"`)
	_, err := New().Generate(api)
	diags, ok := err.(model.Diagnostics)
	if !ok {
		t.Fatalf("Generate error = %v (%T), want model.Diagnostics", err, err)
	}
	want := []string{
		"testdata/widgets/v1/types.go:21:2: invalid default one for field WidgetSpec.Replicas of type *int32: it is not valid JSON",
		"testdata/widgets/v1/types.go:27:2: invalid default \"a\" for field WidgetSpec.Tags of type []string: a []string value is a JSON array",
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

func ptrTo(s string) *string { return &s }

// TestOtherPackageTypes: a version whose kind holds types of another API package (Gateway API's
// v1beta1 `type Widget v1.Widget`, whose fields are v1's types) defaults them as that package
// does, calling its hooks: the schema of that version has the same defaults.
func TestOtherPackageTypes(t *testing.T) {
	api := widgetsAPI(t)
	g := api.Groups[0]
	v1 := g.Versions[0].Package
	const betaPath = "github.com/apigen-dev/apigen/generators/defaulting/testdata/widgets/v1beta1"
	widget := &model.Type{Name: model.TypeName{Package: betaPath, Name: "Widget"}, Kind: model.Struct, Local: true,
		Fields: v1.Type("Widget").Fields}
	list := &model.Type{Name: model.TypeName{Package: betaPath, Name: "WidgetList"}, Kind: model.Struct, Local: true,
		Fields: []*model.Field{field("Items", slice(named(widget)), 5, "")}}
	beta := &model.Package{Path: betaPath, Dir: "/src/v1beta1", Name: "v1beta1", Types: []*model.Type{widget, list}}
	g.Versions = append(g.Versions, &model.Version{Name: "v1beta1", Package: beta,
		Kinds: []*model.Kind{{Name: "Widget", Type: widget, List: list}}})
	api.Packages = append(api.Packages, beta)
	files, err := New().Generate(api)
	if err != nil {
		t.Fatal(err)
	}
	got := string(files[filepath.Join(beta.Dir, FileName)])
	for _, want := range []string{
		"func SetObjectDefaults_Widget(in *Widget) {\n\tif in.Spec.Engine",
		"\tif in.Spec.Engine == \"\" {\n\t\tin.Spec.Engine = \"postgres\"",
		"\t\tv1.SetDefaults_Port(&in.Spec.Ports[i])\n\t\tif in.Spec.Ports[i].Protocol == \"\" {",
		"\t\tv1.SetDefaults_Port(&in.Spec.Ports[i])",
		"\t\tvar ptrVar1 v1.Count = 3",
		"func SetObjectDefaults_WidgetList(in *WidgetList) {\n\tfor i := range in.Items {\n\t\tSetObjectDefaults_Widget(&in.Items[i])",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("v1beta1's defaults lack %q:\n%s", want, got)
		}
	}
}
