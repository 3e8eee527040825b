package load

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/apigen-dev/apigen/generators/model"
)

const corpus = "../testdata/corpus"

// TestLoadHandWrittenRegistration loads the compatibility corpus and checks what the loader
// reports of each package's hand-written registration: its package-level variables and
// constants, and the runtime.SchemeBuilder field its SchemeBuilder embeds.
func TestLoadHandWrittenRegistration(t *testing.T) {
	const base = "github.com/apigen-dev/apigen/generators/testdata/corpus/"
	type decls struct {
		Vars  []string
		Field string
	}
	want := map[string]decls{
		// controller-runtime's *scheme.Builder embeds runtime.SchemeBuilder.
		base + "kubebuilder/api/v1": {Vars: []string{"AddToScheme", "GroupVersion", "ModelLoader", "ModelScout", "ModelWelder", "SchemeBuilder"},
			Field: "SchemeBuilder"},
		// Kubernetes-style register.go: SchemeBuilder is a runtime.SchemeBuilder.
		base + "codegen/apis/shop": {Vars: []string{"AddToScheme", "GroupName", "SchemeBuilder", "SchemeGroupVersion",
			"StoreClosed", "StoreOpen", "StorePending", "TierBasic", "TierPremium"}},
		base + "codegen/apis/shop/v1": {Vars: []string{"AddToScheme", "GroupName", "SchemeBuilder", "SchemeGroupVersion",
			"StoreClosed", "StoreOpen", "StorePending", "TierBasic", "TierPremium", "localSchemeBuilder"}},
	}
	got := map[string]decls{}
	for _, tree := range []string{"kubebuilder", "codegen"} {
		api, _ := loadOK(t, filepath.Join(corpus, tree))
		for _, p := range api.Packages {
			if _, ok := want[p.Path]; !ok {
				continue
			}
			var vars []string
			for n := range p.Vars {
				vars = append(vars, n)
			}
			slices.Sort(vars)
			got[p.Path] = decls{Vars: vars, Field: p.SchemeBuilderField}
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("hand-written declarations mismatch (-want +got):\n%s", diff)
	}
}

// TestBareLoad loads the corpus trees bare and counts every package the patterns match.
func TestBareLoad(t *testing.T) {
	n, err := BareLoad(corpus, "./codegen/...", "./kubebuilder/...")
	if err != nil {
		t.Fatalf("BareLoad: %v", err)
	}
	// shop, shop/v1, shop/v1beta1, shop/install (its hand-written install.go, as
	// sample-apiserver's), shop/validation, api/v1, internal/scheme, chores/api/v1,
	// chores/api/v2 and chores/api/v2/fuzzer; the other install directories hold only
	// generated files, which the load leaves out.
	if n != 10 {
		t.Errorf("BareLoad loaded %d packages, want 10", n)
	}
}

// TestEmptyDefault checks that controller-tools' +kubebuilder:default={}, which the markers
// parser reads as [], is {} on a struct, pointer or map field and stays [] on a list.
func TestEmptyDefault(t *testing.T) {
	strct := &model.Type{Name: model.TypeName{Name: "Policy"}, Kind: model.Struct}
	tags := &model.Type{Name: model.TypeName{Name: "Tags"}, Kind: model.Slice,
		Underlying: &model.TypeRef{Kind: model.Slice, Elem: &model.TypeRef{Kind: model.Basic, Basic: "string"}}}
	for _, tt := range []struct {
		ref  *model.TypeRef
		want string
	}{
		{&model.TypeRef{Kind: model.Named, Named: strct}, "{}"},
		{&model.TypeRef{Kind: model.Pointer, Elem: &model.TypeRef{Kind: model.Named, Named: strct}}, "{}"},
		{&model.TypeRef{Kind: model.Map, Key: &model.TypeRef{Kind: model.Basic, Basic: "string"}, Elem: &model.TypeRef{Kind: model.Basic, Basic: "string"}}, "{}"},
		{&model.TypeRef{Kind: model.Slice, Elem: &model.TypeRef{Kind: model.Basic, Basic: "string"}}, "[]"},
		{&model.TypeRef{Kind: model.Named, Named: tags}, "[]"},
	} {
		def := "[]"
		f := &model.Field{Type: tt.ref, Markers: model.Markers{Default: &def}}
		emptyDefault(f)
		if *f.Markers.Default != tt.want {
			t.Errorf("default {} of a %s field = %s, want %s", tt.ref, *f.Markers.Default, tt.want)
		}
	}
}
