package load

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
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
	// shop, shop/v1, shop/v1beta1, api/v1 and internal/scheme; the install directories hold
	// only generated files, which the build tag excludes.
	if n != 5 {
		t.Errorf("BareLoad loaded %d packages, want 5", n)
	}
}
