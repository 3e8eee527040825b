package load

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/go/packages"

	"github.com/apigen-dev/apigen/generators/model"
)

const fixtures = "../testdata/load"

const shopPath = "github.com/apigen-dev/apigen/generators/testdata/load/basic/apis/shop"

// loadOK loads a fixture case (from the batched load, loadFixture; Load itself when it is
// not batched, as "." after a chdir) and fails on any error diagnostic, returning the
// warnings.
func loadOK(t *testing.T, dir string) (*model.API, model.Diagnostics) {
	t.Helper()
	var api *model.API
	var err error
	if slices.Contains(batched[filepath.Dir(dir)], filepath.Base(dir)) {
		api, err = loadFixture(t, dir)
	} else {
		api, err = Load(dir, "./...")
	}
	var diags model.Diagnostics
	if err != nil && (!errors.As(err, &diags) || diags.HasErrors()) {
		t.Fatalf("Load(%s) error = %v", dir, err)
	}
	return api, diags
}

func TestLoadGroups(t *testing.T) {
	api, warnings := loadOK(t, filepath.Join(fixtures, "basic"))
	if len(warnings) != 1 || !strings.Contains(warnings.Error(), "v1/types.go:83:6: warning: root type Orphan has no OrphanList type") {
		t.Errorf("warnings = %v, want the Orphan warning at types.go:83:6", warnings)
	}
	if len(api.Groups) != 1 {
		t.Fatalf("got %d groups, want 1", len(api.Groups))
	}
	g := api.Groups[0]
	var versions, kinds []string
	for _, v := range g.Versions {
		versions = append(versions, v.Name+"="+v.Package.Path)
		for _, k := range v.Kinds {
			kinds = append(kinds, v.Name+"/"+k.Name+"/"+k.List.Name.Name)
		}
	}
	got := map[string]any{
		"name": g.Name, "hub": g.Hub.Path, "hubIsVersion": g.HubIsVersion, "storage": g.StorageVersion.Name,
		"installPath": g.InstallPath, "installDir": g.InstallDir, "versions": versions, "kinds": kinds,
		"packages": len(api.Packages),
	}
	abs, _ := filepath.Abs(filepath.Join(fixtures, "basic/apis/shop/install"))
	want := map[string]any{
		"name": "shop.example.com", "hub": shopPath, "hubIsVersion": false, "storage": "v1",
		"installPath": shopPath + "/install", "installDir": abs,
		"versions": []string{"v1=" + shopPath + "/v1", "v1beta1=" + shopPath + "/v1beta1"},
		"kinds":    []string{"v1/Order/OrderList", "v1/Policy/PolicyList", "v1beta1/Order/OrderList"},
		"packages": 3,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("group mismatch (-want +got):\n%s", diff)
	}
	if g.Hub.Type("Validator") != nil || g.Hub.Type("ValidateFunc") != nil {
		t.Error("hub types include the helper interface or func type")
	}
	if hubOrder := g.Hub.Type("Order"); hubOrder == nil || !hubOrder.Markers.Root || !hubOrder.Local {
		t.Errorf("hub Order = %+v, want a local root type", hubOrder)
	}
	if g.Versions[1].Package.Markers.VersionName != "v1beta1" {
		t.Errorf("v1beta1 package markers = %+v", g.Versions[1].Package.Markers)
	}
}

func TestLoadKinds(t *testing.T) {
	api, _ := loadOK(t, filepath.Join(fixtures, "basic"))
	var got []model.Kind
	for _, v := range api.Groups[0].Versions {
		for _, k := range v.Kinds {
			c := *k
			c.Type, c.List, c.Pos = nil, nil, model.Position{}
			got = append(got, c)
		}
	}
	all := []string{"create", "update", "updateStatus", "delete", "deleteCollection", "get", "list", "watch", "patch", "apply", "applyStatus"}
	want := []model.Kind{
		{Name: "Order", Plural: "orders", Singular: "order", ShortNames: []string{"ord", "o"}, Categories: []string{"all", "shop"},
			Namespaced: true, StatusSubresource: true, Scale: &model.Scale{SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas"},
			PrinterColumns: []model.PrinterColumn{{Name: "Size", Type: "string", JSONPath: ".spec.size", Priority: 1}},
			Client:         &model.Client{Verbs: all, HasStatus: true, PluralName: "Orders"}, Storage: true},
		{Name: "Policy", Plural: "policies", Singular: "policy", StatusSubresource: true, Storage: true},
		// v1beta1: +genclient with +genclient:noStatus has no status subresource and no
		// UpdateStatus or ApplyStatus.
		{Name: "Order", Plural: "orders", Singular: "order", Namespaced: true,
			Client: &model.Client{Verbs: all, PluralName: "Orders"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("kinds mismatch (-want +got):\n%s", diff)
	}
}

func TestLoadTypes(t *testing.T) {
	api, _ := loadOK(t, filepath.Join(fixtures, "basic"))
	order := api.Types[shopPath+"/v1.Order"]
	if order == nil {
		t.Fatal("v1.Order missing from API.Types")
	}
	if want := "Order is a customer order.\n\nIt has a spec and a status."; order.Doc != want {
		t.Errorf("Order.Doc = %q, want %q", order.Doc, want)
	}
	if !order.Markers.GenClient || order.Markers.Resource == nil {
		t.Errorf("Order markers from the detached block missing: %+v", order.Markers)
	}
	if order.HasMethod("DeepCopyInto") {
		t.Error("Order has DeepCopyInto: the stale generated file was loaded")
	}
	type fieldSummary struct {
		Name, Type, JSON      string
		OmitEmpty, Inline, Em bool
		Doc                   string
	}
	var fields []fieldSummary
	for _, f := range append(order.Fields, api.Types[shopPath+"/v1.OrderSpec"].Fields...) {
		fields = append(fields, fieldSummary{f.Name, f.Type.String(), f.JSONName, f.OmitEmpty, f.Inline, f.Embedded, f.Doc})
	}
	want := []fieldSummary{
		{"TypeMeta", "k8s.io/apimachinery/pkg/apis/meta/v1.TypeMeta", "", false, true, true, ""},
		{"ObjectMeta", "k8s.io/apimachinery/pkg/apis/meta/v1.ObjectMeta", "metadata", true, false, true, ""},
		{"Spec", shopPath + "/v1.OrderSpec", "spec", false, false, false, "Spec is the desired state."},
		{"Status", shopPath + "/v1.OrderStatus", "status", true, false, false, ""},
		{"Size", shopPath + "/v1.Size", "size", true, false, false, "Size of the order."},
		{"Replicas", "*int32", "replicas", true, false, false, ""},
		{"Storage", "k8s.io/apimachinery/pkg/api/resource.Quantity", "storage", false, false, false, ""},
		{"Conditions", "[]k8s.io/apimachinery/pkg/apis/meta/v1.Condition", "conditions", true, false, false, ""},
		{"Labels", "map[string]string", "Labels", false, false, false, ""},
		{"Skipped", "string", "-", false, false, false, ""},
	}
	if diff := cmp.Diff(want, fields); diff != "" {
		t.Errorf("fields mismatch (-want +got):\n%s", diff)
	}
	spec := api.Types[shopPath+"/v1.OrderSpec"]
	one, ten := 1.0, 10.0
	small, gi := `"small"`, `"1Gi"`
	gotMarkers := []model.Markers{spec.Field("Size").Markers, spec.Field("Replicas").Markers, spec.Field("Storage").Markers, spec.Field("Conditions").Markers}
	wantMarkers := []model.Markers{
		{Default: &small},
		{Validation: model.Validation{Minimum: &one, Maximum: &ten}},
		{Default: &gi},
		{ListType: "map", ListMapKey: []string{"type"}},
	}
	if diff := cmp.Diff(wantMarkers, gotMarkers); diff != "" {
		t.Errorf("field markers mismatch (-want +got):\n%s", diff)
	}
	size := api.Types[shopPath+"/v1.Size"]
	if size.Kind != model.Basic || size.Underlying.Basic != "string" || len(size.Markers.Validation.Enum) != 2 {
		t.Errorf("Size = kind %v underlying %v markers %+v", size.Kind, size.Underlying, size.Markers)
	}
}

func TestLoadExternalTypes(t *testing.T) {
	api, _ := loadOK(t, filepath.Join(fixtures, "basic"))
	for _, name := range []string{"ObjectMeta", "ListMeta", "TypeMeta", "Time", "Condition", "OwnerReference", "ManagedFieldsEntry",
		"Status", "StatusDetails", "StatusCause", "DeleteOptions", "Preconditions", "WatchEvent", "Patch"} {
		typ := api.Types["k8s.io/apimachinery/pkg/apis/meta/v1."+name]
		if typ == nil {
			t.Errorf("metav1.%s missing from API.Types", name)
			continue
		}
		if typ.Local || typ.Doc == "" {
			t.Errorf("metav1.%s: Local=%v Doc=%q, want external with a doc", name, typ.Local, typ.Doc)
		}
	}
	om := api.Types["k8s.io/apimachinery/pkg/apis/meta/v1.ObjectMeta"]
	if f := om.Field("Name"); f == nil || f.JSONName != "name" || !strings.Contains(f.Doc, "Name must be unique within a namespace") {
		t.Errorf("ObjectMeta.Name = %+v, want json name and doc from the apimachinery source", f)
	}
	q := api.Types["k8s.io/apimachinery/pkg/api/resource.Quantity"]
	if q == nil || !q.HasMethod("OpenAPISchemaType") || !q.HasMethod("DeepCopyInto") {
		t.Errorf("resource.Quantity = %+v, want methods OpenAPISchemaType and DeepCopyInto", q)
	}
}

func TestLoadFuncs(t *testing.T) {
	api, _ := loadOK(t, filepath.Join(fixtures, "basic"))
	want := map[string][]string{
		shopPath:              {"addKnownTypes"},
		shopPath + "/v1":      {"SetDefaults_Order"},
		shopPath + "/v1beta1": {"Convert_v1beta1_OrderSpec_To_shop_OrderSpec"},
	}
	for _, p := range api.Packages {
		for _, f := range want[p.Path] {
			if !p.HasFunc(f) {
				t.Errorf("%s: HasFunc(%s) = false; funcs %v", p.Path, f, p.Funcs)
			}
		}
		if len(p.Funcs) != len(want[p.Path]) {
			t.Errorf("%s: funcs = %v, want %v", p.Path, p.Funcs, want[p.Path])
		}
	}
}

func TestLoadSingleVersionIsHub(t *testing.T) {
	api, _ := loadOK(t, filepath.Join(fixtures, "single"))
	g := api.Groups[0]
	if !g.HubIsVersion || g.Hub != g.Versions[0].Package || g.StorageVersion != g.Versions[0] {
		t.Fatalf("group = %+v, want the single version as hub and storage version", g)
	}
	k := g.Versions[0].Kinds[0]
	if k.Plural != "widgetz" || k.Singular != "wid" {
		t.Errorf("kind = %s/%s, want widgetz/wid from +kubebuilder:resource", k.Plural, k.Singular)
	}
}

// TestLoadNoHub: a group of two versions without an internal package, laid out as Gateway
// API's (v1beta1 declares `type Widget v1.Widget` and aliases v1's other types), is served
// from its versions: Widget is held and stored in v1, Grant (marked +kubebuilder:storageversion
// in v1beta1) in v1beta1, and the install package goes below the most preferred version.
func TestLoadNoHub(t *testing.T) {
	api, warnings := loadOK(t, filepath.Join(fixtures, "nohub"))
	g := api.Groups[0]
	const v1Path = "github.com/apigen-dev/apigen/generators/testdata/load/nohub/v1"
	got := map[string]any{"hubIsVersion": g.HubIsVersion, "hub": g.Hub.Path, "installPath": g.InstallPath, "storage": g.StorageVersion.Name}
	for _, kind := range []string{"Widget", "Grant"} {
		got[kind] = g.StorageVersionOf(kind).Name + " " + g.HubOf(kind).Name + " " + g.ObjectPackage(kind).Name
	}
	for _, v := range g.Versions {
		for _, k := range v.Kinds {
			got[v.Name+"/"+k.Name+" stored"] = k.Storage
		}
	}
	want := map[string]any{
		"hubIsVersion": true, "hub": v1Path, "installPath": v1Path + "/install", "storage": "v1",
		"Widget": "v1 v1 v1", "Grant": "v1beta1 v1beta1 v1beta1",
		"v1/Widget stored": true, "v1/Grant stored": false, "v1beta1/Widget stored": false, "v1beta1/Grant stored": true,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("group mismatch (-want +got):\n%s", diff)
	}
	// v1beta1.Widget is a struct with v1's fields; WidgetSpec is v1's (an alias declares no type).
	w := g.Versions[1].Package.Type("Widget")
	if w == nil || w.Kind != model.Struct || w.Field("Spec") == nil || w.Field("Spec").Type.Named.Name.Package != v1Path {
		t.Errorf("v1beta1 Widget = %+v, want a struct whose Spec is v1's WidgetSpec", w)
	}
	if g.Versions[1].Package.Type("WidgetSpec") != nil {
		t.Error("the alias v1beta1.WidgetSpec is a model type")
	}
	if !g.Versions[1].Package.Imported(v1Path) || g.Versions[0].Package.Imported(g.Versions[1].Package.Path) {
		t.Errorf("imports: v1beta1 %v, v1 %v; want v1beta1 to import v1", g.Versions[1].Package.Imports, g.Versions[0].Package.Imports)
	}
	want1 := "nohub/v1/types.go:50:6: warning: ValidateGrant in package v1 is not called: validation hooks of Grant live in its hub version's package"
	if len(warnings) != 1 || !strings.Contains(warnings.Error(), want1) {
		t.Errorf("warnings = %v, want %s", warnings, want1)
	}
}

// TestLoadClientsAll: +apigen:clients=all in one version package gives every kind of the API
// root a client with every verb, in that version and the others, without changing how the
// kinds are served: controller-gen's plural (indices), no status subresource from a Status
// field, UpdateStatus only where /status is served. On a type it does nothing and says so.
func TestLoadClientsAll(t *testing.T) {
	api, warnings := loadOK(t, filepath.Join(fixtures, "clientsall"))
	got := map[string]string{}
	for _, v := range api.Groups[0].Versions {
		for _, k := range v.Kinds {
			if k.Client == nil {
				got[v.Name+"/"+k.Name] = "no client"
				continue
			}
			got[v.Name+"/"+k.Name] = fmt.Sprintf("%s status=%v subresource=%v verbs=%d %s", k.Plural, k.Client.HasStatus,
				k.StatusSubresource, len(k.Client.MethodVerbs()), k.Client.PluralName)
		}
	}
	want := map[string]string{
		"v1/Index": "indices status=false subresource=false verbs=9 Indexes",
		"v1/Gear":  "gears status=true subresource=true verbs=11 Gears",
		"v2/Index": "indices status=false subresource=false verbs=9 Indexes",
		"v2/Gear":  "gears status=true subresource=true verbs=11 Gears",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("kinds (-want +got):\n%s", diff)
	}
	want1 := "clientsall/api/v1/types.go:32:6: warning: +apigen:clients on Gear does nothing on a type"
	if len(warnings) != 1 || !strings.Contains(warnings.Error(), want1) {
		t.Errorf("warnings = %v, want %s", warnings, want1)
	}
}

// TestLoadCreateOnly: +genclient:onlyVerbs=create makes a create-only kind, which needs no
// list type and has no status subresource though it has a Status field; any other onlyVerbs
// limits the verbs the kind is served with and its client has, with no warning.
func TestLoadCreateOnly(t *testing.T) {
	api, warnings := loadOK(t, filepath.Join(fixtures, "createonly"))
	kinds := api.Groups[0].Versions[0].Kinds
	if len(kinds) != 2 {
		t.Fatalf("kinds %+v", kinds)
	}
	review, note := kinds[0], kinds[1]
	if !review.CreateOnly || review.List != nil || review.StatusSubresource || review.Namespaced || review.Plural != "accessreviews" {
		t.Errorf("AccessReview = %+v, want create-only, cluster-scoped, no list, no status subresource", review)
	}
	if note.CreateOnly || note.List == nil {
		t.Errorf("Note = %+v, want a stored kind with a list type", note)
	}
	if note.Client == nil || !slices.Equal(note.Client.Verbs, []string{"get", "list"}) {
		t.Errorf("Note's client = %+v, want the verbs get and list", note.Client)
	}
	if len(warnings) != 0 {
		t.Errorf("warnings: %v", warnings)
	}
}

func TestLoadVersionOrder(t *testing.T) {
	api, _ := loadOK(t, filepath.Join(fixtures, "order"))
	g := api.Groups[0]
	var got []string
	for _, v := range g.Versions {
		got = append(got, v.Name)
	}
	if diff := cmp.Diff([]string{"v1beta1", "v2alpha1", "v1alpha1"}, got); diff != "" {
		t.Errorf("versions mismatch (-want +got):\n%s", diff)
	}
	if g.StorageVersion.Name != "v1beta1" || g.HubIsVersion || g.Hub.Name != "order" {
		t.Errorf("storage version %s, hub %s (is version %v); want v1beta1 and the order package", g.StorageVersion.Name, g.Hub.Name, g.HubIsVersion)
	}
}

func TestLoadRelativePositions(t *testing.T) {
	t.Chdir(filepath.Join(fixtures, "basic"))
	api, _ := loadOK(t, ".")
	got := api.Groups[0].Versions[0].Kinds[0].Pos
	if want := (model.Position{File: "apis/shop/v1/types.go", Line: 22, Col: 6}); got != want {
		t.Errorf("Order position = %v, want %v", got, want)
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		dir       string
		wantError []string
	}{
		{"nohubconflict", []string{
			"nohubconflict/v1/types.go:11:6: kind Thing of group conflict.example.com has two storage versions, v2 and v1: mark one only with +kubebuilder:storageversion",
			"nohubconflict/v1/types.go:11:6: kind Thing of group conflict.example.com has a Hub method in v2 and in v1: one version is a kind's hub",
			"nohubconflict/v1/types.go:3:1: +k8s:conversion-gen=example.com/elsewhere in package v1 names no other version package of group conflict.example.com, which has no internal (hub) package"}},
		{"badmarker", []string{
			"badmarker/v1/types.go:5:2: warning: unknown marker +kubebuilder:validaton:Minimum (did you mean +kubebuilder:validation:Minimum?)",
			"badmarker/v1/types.go:7:2: +kubebuilder:validation:Minimum=abc: cannot parse abc as a number"}},
		{"syntax", []string{"syntax/v1/types.go:5:8: raw string literal not terminated"}},
		{"dupversion", []string{"dupversion/apis/dup/v1beta1/doc.go:1:1: group dup.example.com serves version v1 twice"}},
		{"hubrefs", []string{
			"hubrefs/apis/hr/v1/doc.go:3:1: +k8s:conversion-gen=github.com/apigen-dev/apigen/generators/testdata/load/hubrefs/apis/other in package v1 must name the hub package of group hr.example.com, github.com/apigen-dev/apigen/generators/testdata/load/hubrefs/apis/hr",
			"hubrefs/apis/hr/v1/types.go:12:6: warning: +k8s:conversion-gen=false on Thing: apigen still generates its conversion (conversion-gen would not); write Convert_v1_Thing_To_hr_Thing to replace it",
			"hubrefs/apis/hr/v1/types.go:26:6: warning: ValidateThing in package v1 is not called: validation hooks live in the hub package"}},
		{"pluralconflict", []string{"pluralconflict/apis/pc/v1beta1/types.go:8:6: kind Index is served as indexes in v1 but as indices in v1beta1"}},
		{"badpaths", []string{
			"+kubebuilder:selectablefield .spec.labels of Pool: the field is a map[string]string, not a string, boolean or integer",
			`+kubebuilder:selectablefield .spec.tier.name of Pool: cannot follow "name"`,
			`+kubebuilder:selectablefield .spec.nope of Pool: PoolSpec has no field "nope"`,
			`+kubebuilder:subresource:scale statuspath .status.missing of Pool: PoolStatus has no field "missing"`,
			"+kubebuilder:subresource:scale selectorpath .spec.count of Pool: the field is a github.com/apigen-dev/apigen/generators/testdata/load/badpaths/v1.Count, not a string"}},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			api, err := loadFixture(t, filepath.Join(fixtures, tt.dir))
			var diags model.Diagnostics
			if !errors.As(err, &diags) || !diags.HasErrors() {
				t.Fatalf("Load() error = %v, want error diagnostics", err)
			}
			// Packages that do not type-check give no API; later errors come with the API, so
			// that the generators can add theirs to the same report.
			if wantAPI := tt.dir != "syntax"; (api != nil) != wantAPI {
				t.Errorf("Load() returned API %v with error diagnostics, want one: %v", api != nil, wantAPI)
			}
			for _, w := range tt.wantError {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Load() error =\n%v\nwant substring %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "# ") {
				t.Errorf("Load() error repeats the compiler's report:\n%v", err)
			}
		})
	}
}

func TestLoadMissingPackage(t *testing.T) {
	_, err := Load(fixtures, "./doesnotexist")
	if err == nil || !strings.Contains(err.Error(), "doesnotexist") {
		t.Errorf("Load(missing) error = %v, want one naming the directory", err)
	}
}

func TestPlural(t *testing.T) {
	for in, want := range map[string]string{
		"database": "databases", "class": "classes", "policy": "policies", "status": "statuses",
		"index": "indices", "key": "keys", "match": "matches", "shelf": "shelves", "DatabaseClass": "databaseclasses", "": "",
	} {
		if got := Plural(in); got != want {
			t.Errorf("Plural(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestLoadJSONShapes checks what generators/jsoncodec needs beyond the tag's name: the
// ",string" and ",omitzero" options, unexported embedded fields, and method sets with
// promoted methods and receivers told apart.
func TestLoadJSONShapes(t *testing.T) {
	api, _ := loadOK(t, filepath.Join(fixtures, "jsontags"))
	pkg := api.Packages[0]
	tagged := pkg.Type("Tagged")
	type tags struct {
		Name, JSONName                  string
		JSONString, OmitZero, OmitEmpty bool
	}
	var got []tags
	for _, f := range tagged.Fields {
		got = append(got, tags{f.Name, f.JSONName, f.JSONString, f.OmitZero, f.OmitEmpty})
	}
	want := []tags{{"Count", "count", true, false, false}, {"Maybe", "maybe", false, true, true}, {"Plain", "plain", false, false, false}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Tagged fields (-want +got):\n%s", diff)
	}
	if !tagged.EmbedsUnexported || pkg.Type("Stamp").EmbedsUnexported {
		t.Errorf("EmbedsUnexported: Tagged %v (want true), Stamp %v (want false)", tagged.EmbedsUnexported, pkg.Type("Stamp").EmbedsUnexported)
	}
	stamp, level := pkg.Type("Stamp"), pkg.Type("Level")
	for _, c := range []struct {
		set  map[string]bool
		name string
		want bool
	}{
		{stamp.ValueMethods, "MarshalJSON", true}, {stamp.ValueMethods, "UnmarshalJSON", false},
		{stamp.PointerMethods, "UnmarshalJSON", true}, {stamp.PointerMethods, "MarshalJSON", true},
		{level.ValueMethods, "MarshalText", true}, {level.ValueMethods, "UnmarshalText", false},
		{level.PointerMethods, "UnmarshalText", true},
	} {
		if c.set[c.name] != c.want {
			t.Errorf("method set has %s = %v, want %v", c.name, c.set[c.name], c.want)
		}
	}
}

// benchDir is the module directory the benchmarks load ./... from, e.g.
// go test -bench Load -load.dir=$PWD/../../example-api ./generators/load
var benchDir = flag.String("load.dir", filepath.Join(fixtures, "basic"), "directory the load benchmarks load ./... from")

// BenchmarkLoad and BenchmarkBarePackagesLoad compare Load with a bare go/packages load
// (syntax and types of the same packages, same build tag); the target is a ratio of at most
// 1.5 between their ns/op.
func BenchmarkLoad(b *testing.B) {
	for b.Loop() {
		_, err := Load(*benchDir, "./...")
		var diags model.Diagnostics
		if err != nil && (!errors.As(err, &diags) || diags.HasErrors()) {
			b.Fatal(err)
		}
	}
}

func BenchmarkBarePackagesLoad(b *testing.B) {
	for b.Loop() {
		cfg := &packages.Config{Mode: packages.NeedName | packages.NeedTypes | packages.NeedSyntax,
			Dir: *benchDir, BuildFlags: []string{"-tags=" + BuildTag}}
		if _, err := packages.Load(cfg, "./..."); err != nil {
			b.Fatal(err)
		}
	}
}

// TestLoadLifecycle checks the resource names of +genclient and kubebuilder kinds and what
// +kubebuilder:skipversion, unservedversion and deprecatedversion make of a kind, and the
// warnings for version and client markers that would do nothing.
func TestLoadLifecycle(t *testing.T) {
	api, warnings := loadOK(t, filepath.Join(fixtures, "lifecycle"))
	type kindSummary struct {
		Version, Name, Plural string
		Unserved              bool
		Deprecation           string
		Client                bool
	}
	var got []kindSummary
	for _, v := range api.Groups[0].Versions {
		for _, k := range v.Kinds {
			got = append(got, kindSummary{v.Name, k.Name, k.Plural, k.Unserved, k.DeprecationWarning, k.Client != nil})
		}
	}
	want := []kindSummary{
		{"v1", "Axis", "axes", false, "", true},
		{"v1", "Index", "indexes", false, "", true},
		{"v1", "Person", "people", false, "", false},
		{"v1", "Widget", "widgets", false, "", false},
		// Axis is skipped in v1beta1.
		{"v1beta1", "Index", "indexes", false, "lc.example.com/v1beta1 Index is deprecated; use lc.example.com/v1 Index", true},
		{"v1beta1", "Person", "people", true, "", false},
		{"v1beta1", "Widget", "widgets", false, "widgets of v1beta1 go away in 2027", false},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("kinds mismatch (-want +got):\n%s", diff)
	}
	for _, w := range []string{
		"lifecycle/apis/lc/v1/types.go:73:6: warning: +kubebuilder:skipversion on Part does nothing: it describes a kind's version, and Part is not a kind",
		"lifecycle/apis/lc/v1beta1/types.go:61:6: warning: +genclient:readonly on Widget does nothing without +genclient",
	} {
		if !strings.Contains(warnings.Error(), w) {
			t.Errorf("warnings =\n%v\nwant one containing %q", warnings, w)
		}
	}
}

// TestLoadDefinedFrom checks DefinedFrom: the named type a declaration names, in its own
// package or, through the file's import name, in another; none for a type literal or a
// predeclared type.
func TestLoadDefinedFrom(t *testing.T) {
	api, _ := loadOK(t, filepath.Join(fixtures, "defined"))
	pkg := api.Packages[0]
	got := map[string]string{}
	for _, name := range []string{"Local", "Remote", "Names", "Plain", "Base"} {
		if from := pkg.Type(name).DefinedFrom; from != nil {
			got[name] = from.Name.String()
		}
	}
	want := map[string]string{"Local": pkg.Path + ".Base", "Remote": "k8s.io/apimachinery/pkg/apis/meta/v1.Time"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("DefinedFrom (-want +got):\n%s", diff)
	}
}

// TestLoadCRDDir checks that a group's CRDs go to <root>/config/crd, beside the generated
// clients' <root>/pkg/generated: root is the parent of the apis directory.
func TestLoadCRDDir(t *testing.T) {
	api, _ := loadOK(t, filepath.Join(fixtures, "basic"))
	root, _ := filepath.Abs(filepath.Join(fixtures, "basic"))
	g := api.Groups[0]
	if g.CRDDir != filepath.Join(root, "config", "crd") || g.ClientDir != filepath.Join(root, "pkg", "generated") {
		t.Errorf("CRDDir = %s, ClientDir = %s; want both below %s", g.CRDDir, g.ClientDir, root)
	}
}

// TestLoadConvertible: a root type whose pointer has ConvertTo and ConvertFrom taking an
// interface of controller-runtime's conversion.Hub shape (Hub() and runtime.Object) and
// returning error is Convertible, whatever package declares the interface; methods of those
// names of other shapes, and the hub, are not.
func TestLoadConvertible(t *testing.T) {
	api, _ := loadOK(t, filepath.Join(fixtures, "convertible"))
	got := map[string]bool{}
	for _, p := range api.Packages {
		for _, name := range []string{"Thing", "Other"} {
			if typ := p.Type(name); typ != nil {
				got[p.Name+"."+name] = typ.Convertible
			}
		}
	}
	want := map[string]bool{"v1.Thing": false, "v2.Thing": true, "v2.Other": false}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Convertible (-want +got):\n%s", diff)
	}
}

// TestLoadMissingModule: a package importing controller-runtime in a module whose go.mod does
// not require it is one error at the import naming the go get to run (the version apigen's
// go.mod requires), not the type errors and conversion diagnostics that would follow.
func TestLoadMissingModule(t *testing.T) {
	t.Setenv("GOPROXY", "off")
	for _, flags := range []string{"", "-mod=readonly"} {
		t.Setenv("GOFLAGS", flags)
		_, err := Load(filepath.Join(fixtures, "nomodule"), "./...")
		want := "v1/types.go:5:8: package sigs.k8s.io/controller-runtime/pkg/conversion is imported, but no module this module's " +
			"go.mod requires provides it; run `go get sigs.k8s.io/controller-runtime@" + controllerRuntimeVersion + "`, then apigen generate again"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("GOFLAGS=%s: Load error = %v, want %q", flags, err, want)
		}
	}
}

// TestControllerRuntimeVersion: the version the missing-module message names is the one
// apigen's go.mod requires.
func TestControllerRuntimeVersion(t *testing.T) {
	data, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	if want := "\t" + controllerRuntimeModule + " " + controllerRuntimeVersion + "\n"; !strings.Contains(string(data), want) {
		t.Errorf("go.mod does not require %s %s: update controllerRuntimeVersion", controllerRuntimeModule, controllerRuntimeVersion)
	}
}
