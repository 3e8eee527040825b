package crd_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// releaseCategory is one kind of difference between the CRDs apigen writes for Gateway API
// and the CRDs Gateway API releases (config/crd/standard of the module), which its own
// generator (controller-tools plus Gateway API's edits for its release channels) writes:
// match reports whether a divergence is of this kind.
type releaseCategory struct {
	name, reason string
	match        func(d divergence) bool
}

// releaseCategories are the documented kinds of difference (README.md, "CRDs"); every
// divergence must be of one of them, and each must occur.
var releaseCategories = []releaseCategory{
	{name: "bundle annotations",
		reason: "Gateway API's generator annotates each CRD with its bundle version, release channel and API approval (api-approved.kubernetes.io); the types carry no +kubebuilder:metadata for them",
		match:  func(d divergence) bool { return d.Path == "metadata.annotations" && d.A == nil }},
	{name: "experimental fields",
		reason: "fields documented <gateway:experimental> are left out of the standard channel's CRDs; apigen writes every field of the types",
		match: func(d divergence) bool {
			m, ok := d.A.(map[string]any)
			desc, _ := m["description"].(string)
			return ok && d.B == nil && strings.Contains(desc, "<gateway:experimental>")
		}},
	{name: "description markup",
		reason: "Gateway API's generator edits descriptions: it removes its <gateway:...> tags and the text they fence (notes excluded from CRDs, experimental descriptions); apigen writes the doc comments as controller-gen does",
		match: func(d divergence) bool {
			a, _ := d.A.(string)
			b, _ := d.B.(string)
			return strings.HasSuffix(d.Path, "description") && strings.Contains(a, "<gateway:") && !strings.Contains(b, "<gateway:")
		}},
	{name: "standard-channel validations",
		reason: "rules written in doc comments as <gateway:standard:validation:XValidation:...> are added to the standard channel's CRDs only; apigen reads + markers",
		match: func(d divergence) bool {
			desc, _ := d.ParentA["description"].(string)
			return strings.HasSuffix(d.Path, "x-kubernetes-validations") && strings.Contains(desc, "<gateway:standard:validation:XValidation")
		}},
	{name: "IP address formats",
		reason: "Gateway API's generator adds a oneOf that checks IPAddress values are ipv4 or ipv6 addresses; the types have no marker for it",
		match: func(d divergence) bool {
			return strings.HasSuffix(d.Path, ".oneOf") && d.A == nil && strings.Contains(brief(d.B), "ipv4")
		}},
	{name: "versions of other packages",
		reason: "the release CRDs also list the deprecated, unserved v1alpha2 and v1alpha3 versions of apis/v1alpha2 and apis/v1alpha3, which the compared load does not include",
		match: func(d divergence) bool {
			return d.A == nil && (strings.HasSuffix(d.Path, "[v1alpha2]") || strings.HasSuffix(d.Path, "[v1alpha3]"))
		}},
	{name: "not a CRD",
		reason: "gateway.networking.k8s.io_vap_safeupgrades.yaml is a ValidatingAdmissionPolicy shipped beside the CRDs",
		match:  func(d divergence) bool { return d.Path == "" && d.A == nil && strings.Contains(d.File, "vap_") }},
}

// TestGatewayReleaseCRDs compares the CRDs apigen writes for Gateway API's standard channel
// (gatewayCRDs) with the CRDs Gateway API v1.6.3 releases for it, and checks that the
// differences are exactly of the documented releaseCategories.
func TestGatewayReleaseCRDs(t *testing.T) {
	if testing.Short() {
		t.Skip("loads Gateway API with apigen's loader")
	}
	root := moduleRoot(t)
	apigen := gatewayCRDs(t, root)
	release := releaseCRDs(t, root)
	count := map[string]int{}
	var other []divergence
	for _, d := range compareCRDs(t, apigen, release) {
		i := slices.IndexFunc(releaseCategories, func(c releaseCategory) bool { return c.match(d) })
		if i < 0 {
			other = append(other, d)
			continue
		}
		count[releaseCategories[i].name]++
	}
	if len(other) > 0 {
		t.Errorf("%d differences from the release CRDs are of no documented category:\n%s", len(other), describe(other))
	}
	for _, c := range releaseCategories {
		if count[c.name] == 0 {
			t.Errorf("no difference of category %q any more (update releaseCategories and README.md): %s", c.name, c.reason)
		}
	}
	t.Logf("%d release files; differences by category: %v", len(release), count)
}

// releaseCRDs reads config/crd/standard of the Gateway API module the main module requires.
func releaseCRDs(t *testing.T, root string) map[string][]byte {
	t.Helper()
	pkgs, err := packages.Load(&packages.Config{Mode: packages.NeedModule, Dir: root}, gatewayVersions[0])
	if err != nil || len(pkgs) != 1 || pkgs[0].Module == nil {
		t.Fatalf("cannot find the Gateway API module: %v", err)
	}
	dir := filepath.Join(pkgs[0].Module.Dir, "config", "crd", "standard")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, e := range entries {
		if filepath.Ext(e.Name()) != ".yaml" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = b
	}
	return out
}
