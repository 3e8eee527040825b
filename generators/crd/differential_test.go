package crd_test

import (
	"slices"
	"strings"
	"testing"

	// The Gateway API packages compared are loaded by import path; importing them here keeps
	// their module a (test-only) requirement of go.mod.
	_ "sigs.k8s.io/gateway-api/apis/v1"
	_ "sigs.k8s.io/gateway-api/apis/v1beta1"
)

// diffCase is one API compared with controller-gen: apigen loads apigen (its whole tree,
// hub included), controller-gen loads ref (the served version packages only: a hub package
// is no API version to controller-gen, which would write a CRD version named after it).
type diffCase struct {
	name        string
	apigen, ref []string
}

// diffCases are the APIs of TestMatchesControllerGen besides Gateway API.
var diffCases = []diffCase{
	{name: "kubebuilder", apigen: []string{"./generators/testdata/corpus/kubebuilder/..."},
		ref: []string{"./generators/testdata/corpus/kubebuilder/..."}},
	{name: "codegen", apigen: []string{"./generators/testdata/corpus/codegen/apis/..."},
		ref: []string{"./generators/testdata/corpus/codegen/apis/shop/v1", "./generators/testdata/corpus/codegen/apis/shop/v1beta1"}},
	{name: "clients", apigen: []string{"./generators/testdata/corpus/clients/apis/..."},
		ref: []string{"./generators/testdata/corpus/clients/apis/..."}},
	{name: "example-api", apigen: []string{"./example-api/apis/..."},
		ref: []string{"./example-api/apis/db/v1", "./example-api/apis/db/v1alpha1"}},
	// testdata/markers holds every marker the generator maps, in kubebuilder's grammar.
	{name: "markers", apigen: []string{"./generators/crd/testdata/markers/..."},
		ref: []string{"./generators/crd/testdata/markers/v1", "./generators/crd/testdata/markers/v2"}},
	// versions: two versions without a hub package, a storage version per kind.
	{name: "versions", apigen: []string{"./generators/testdata/corpus/versions/..."},
		ref: []string{"./generators/testdata/corpus/versions/..."}},
	// Gateway API's standard channel: v1 and v1beta1, one load as controller-gen's.
	{name: "gateway-api", apigen: gatewayVersions, ref: gatewayVersions},
}

// gatewayVersions are the Gateway API v1.6.3 packages of the standard channel compared.
var gatewayVersions = []string{"sigs.k8s.io/gateway-api/apis/v1", "sigs.k8s.io/gateway-api/apis/v1beta1"}

// exception is a documented divergence from controller-gen: every divergence in file (of
// case) at path, or below it, is explained by reason.
type exception struct {
	corpus, file, path, reason string
}

// exceptions are every divergence from controller-gen TestMatchesControllerGen accepts; the
// package doc lists the same differences. Each must occur.
var exceptions = []exception{
	{corpus: "example-api", file: "db.example.com_databaseclasses.yaml", path: "spec.versions[v1].storage",
		reason: "DatabaseClass has two versions and no +kubebuilder:storageversion: controller-gen reports an error and marks no version; apigen stores it in its most preferred version, v1"},
	{corpus: "example-api", file: "db.example.com_databaseusages.yaml",
		reason: "DatabaseUsage is +apigen:storage=rest, computed at request time: no CustomResourceDefinition could store it, so apigen writes none; controller-gen writes one for every root kind"},
	{corpus: "codegen", file: "shop.example.com_regions.yaml", path: "spec.versions[v1].storage",
		reason: "no +kubebuilder:storageversion: controller-gen reports an error; apigen stores the kind in its most preferred version"},
	{corpus: "codegen", file: "shop.example.com_stores.yaml", path: "spec.versions[v1].storage",
		reason: "no +kubebuilder:storageversion: controller-gen reports an error; apigen stores the kind in its most preferred version"},
	{corpus: "codegen", file: "shop.example.com_regions.yaml", path: "spec.scope",
		reason: "+genclient:nonNamespaced makes the kind cluster-scoped in apigen (and client-gen); controller-gen reads only +kubebuilder:resource:scope"},
	{corpus: "clients", file: "fleet.example.com_ports.yaml", path: "spec.scope",
		reason: "+genclient:nonNamespaced makes the kind cluster-scoped in apigen (and client-gen); controller-gen reads only +kubebuilder:resource:scope"},
	{corpus: "codegen", file: "shop.example.com_stores.yaml", path: "spec.versions[v1].subresources",
		reason: "a +genclient kind with a Status field has the status subresource in apigen, as client-gen's clients expect; controller-gen needs +kubebuilder:subresource:status"},
	{corpus: "codegen", file: "shop.example.com_stores.yaml", path: "spec.versions[v1beta1].subresources",
		reason: "a +genclient kind with a Status field has the status subresource in apigen, as client-gen's clients expect; controller-gen needs +kubebuilder:subresource:status"},
	{corpus: "clients", file: "fleet.example.com_ships.yaml", path: "spec.versions[v1].subresources.status",
		reason: "a +genclient kind with a Status field has the status subresource in apigen, as client-gen's clients expect; controller-gen needs +kubebuilder:subresource:status"},
	{corpus: "clients", file: "fleet.example.com_indexes.yaml",
		reason: "a +genclient kind is served at client-gen's plural (indexes), the one its clients request; controller-gen names the CRD with flect's (indices)"},
	{corpus: "clients", file: "fleet.example.com_indices.yaml",
		reason: "a +genclient kind is served at client-gen's plural (indexes), the one its clients request; controller-gen names the CRD with flect's (indices)"},
	{corpus: "clients", file: "fleet.example.com_routes.yaml", path: "spec.versions[v1].schema.openAPIV3Schema.properties.spec.properties.stops.additionalProperties.minimum",
		reason: "+k8s:eachVal=+k8s:minimum=1 on a map constrains its values in apigen (validation-gen's meaning); controller-gen does not read +k8s:eachVal"},
}

// TestMatchesControllerGen is the differential test of DESIGN.md section 9 for CRDs: the
// CRDs apigen writes for the corpus trees, the example API and Gateway API's standard
// channel (v1 and v1beta1) are compared, value by value after parsing (map key order is
// the only normalisation besides controllerGen's options), with what controller-gen's crd
// generator writes for the same packages. Every divergence must be one of exceptions, and
// every exception must occur.
func TestMatchesControllerGen(t *testing.T) {
	if testing.Short() {
		t.Skip("loads packages with apigen's loader and with controller-tools'")
	}
	root := moduleRoot(t)
	for _, c := range diffCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			apigen, _, diags := apigenCRDs(t, root, c.apigen...)
			if diags.HasErrors() {
				t.Fatalf("apigen cannot load %v:\n%v", c.apigen, diags)
			}
			ref, errs := controllerGen(t, root, c.ref...)
			t.Logf("controller-gen reports: %v", errs)
			checkDivergences(t, c.name, apigen, ref)
		})
	}
}

// gatewayCRDs returns apigen's CRDs of Gateway API's gatewayVersions, from one load.
func gatewayCRDs(t *testing.T, root string) map[string][]byte {
	t.Helper()
	files, _, diags := apigenCRDs(t, root, gatewayVersions...)
	if diags.HasErrors() {
		t.Fatalf("apigen cannot load %v:\n%v", gatewayVersions, diags)
	}
	return files
}

// checkDivergences compares apigen's CRDs with the reference's and fails t for every
// divergence no exception of corpus explains and every exception of corpus that explains none.
func checkDivergences(t *testing.T, corpus string, apigen, ref map[string][]byte) {
	t.Helper()
	if len(ref) == 0 {
		t.Fatal("controller-gen wrote no CRD")
	}
	used := map[int]bool{}
	var unexplained []divergence
	for _, d := range compareCRDs(t, apigen, ref) {
		i := slices.IndexFunc(exceptions, func(e exception) bool {
			return e.corpus == corpus && e.file == d.File &&
				(e.path == "" || d.Path == e.path || strings.HasPrefix(d.Path, e.path+".") || strings.HasPrefix(d.Path, e.path+"["))
		})
		if i < 0 {
			unexplained = append(unexplained, d)
			continue
		}
		used[i] = true
	}
	if len(unexplained) > 0 {
		t.Errorf("%d CRD files compared; %d divergences from controller-gen no exception explains:\n%s",
			len(ref), len(unexplained), describe(unexplained))
	}
	for i, e := range exceptions {
		if e.corpus == corpus && !used[i] {
			t.Errorf("exception %s %s no longer occurs (remove it): %s", e.file, e.path, e.reason)
		}
	}
	t.Logf("%d CRD files compared, %d versions; %d exceptions used", len(ref), countVersions(t, ref), len(used))
}

// countVersions counts the CRD versions of files.
func countVersions(t *testing.T, files map[string][]byte) int {
	n := 0
	for name, b := range files {
		if spec, ok := parseCRD(t, name, b)["spec"].(map[string]any); ok {
			versions, _ := spec["versions"].([]any)
			n += len(versions)
		}
	}
	return n
}
