package crddiff

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/apigen-dev/apigen/runtime/apiextensions"
	"github.com/apigen-dev/apigen/runtime/server"
	"github.com/apigen-dev/apigen/runtime/storage/etcd3"
	"github.com/apigen-dev/apigen/runtime/storage/etcdtest"
)

// extensionsPerKind is how many generated inputs each release CRD gets in
// TestExtensionsDifferential, shared by its served versions (HTTPRoute: 500 through v1, 500
// through v1beta1): the versions of a kind have near identical schemas, and HTTPRoute's
// inputs, the most costly, take most of the test's time. A quarter under -short (perKind).
const extensionsPerKind = 1000

// crdsPath is the collection of CustomResourceDefinitions.
const crdsPath = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"

// startExtensionsSubject is apigen's extensions server serving the CRDs of r, as a new user
// gets it: the delegation chain's last two links as runtime/app's buildChain wires them
// (runtime/apiextensions.New on one embedded etcd, behind a typed runtime/server.Server
// serving no groups, whose handler chain a request passes first); every CRD created through
// that handler (POST, fieldValidation=Strict: apigen's CRD API must accept the release's
// files as they are); then the controllers' post-start hook run, which returns once every
// stored CRD whose names are accepted is served (no polling). It fails t unless every served
// version of every CRD is then served. The hook's goroutines end in t.Cleanup.
func startExtensionsSubject(t testing.TB, r *release) *subject {
	t.Helper()
	client, _ := etcdtest.Run(t)
	ext, err := apiextensions.New(apiextensions.Config{Server: server.Config{Name: "crddiff-extensions"},
		Scheme: runtime.NewScheme(), Storage: &etcd3.StorageFactory{Client: client, Prefix: "/registry"}})
	if err != nil {
		t.Fatal(err)
	}
	top := server.New(server.Config{Name: "crddiff-typed"}, ext.Server)
	handler := top.Handler()
	for _, crd := range r.crds {
		req := httptest.NewRequestWithContext(context.Background(), http.MethodPost, crdsPath+"?fieldValidation=Strict",
			bytes.NewReader(r.json[crd.Name]))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, req)
		if rec.Code != http.StatusCreated {
			t.Fatalf("creating the CRD %s: %d %s", crd.Name, rec.Code, rec.Body)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if err := ext.Server.PostStartHooks()[apiextensions.ControllersHookName](ctx); err != nil {
		t.Fatal(err)
	}
	served := map[string]bool{}
	for _, res := range ext.Handler.ServedResources() {
		for _, v := range res.Versions {
			served[res.Group+"/"+v+"/"+res.Kind] = true
		}
	}
	for _, k := range r.servedKinds() {
		if !served[k.name()] {
			t.Fatalf("the extensions server does not serve %s after its controllers ran", k.name())
		}
	}
	return &subject{handler: handler}
}

// inNamespace returns tg serving objects of namespace ns: the same oracle, the collection
// path of ns (tg itself when its kind is cluster-scoped or ns is "").
func (tg *target) inNamespace(ns string) *target {
	if tg.namespace == "" || ns == "" || ns == tg.namespace {
		return tg
	}
	c := *tg
	c.namespace = ns
	c.path = strings.Replace(tg.path, "/namespaces/"+tg.namespace+"/", "/namespaces/"+ns+"/", 1)
	return &c
}

// namespaceOf is the metadata.namespace of the JSON object body, or "".
func namespaceOf(object map[string]any) string {
	md, _ := object["metadata"].(map[string]any)
	ns, _ := md["namespace"].(string)
	return ns
}

// TestExtensionsDifferential is the differential of apigen's extensions server: Gateway API
// v1.6.3's release CRDs (config/crd/standard) created on it as a user creates them, every
// served version of every CRD compared with apiextensions-apiserver's handling of the same
// CRD (the oracle of TestDifferential, set up from the release CRD instead of
// controller-gen's). The inputs are the release's examples of the kind and version, the
// reported cases of extensionsCases and extensionsPerKind generated ones per kind
// (generateExtensions); outcomes are compared as in TestDifferential, and a difference must
// be a row of extensionsDivergences. The test fails, too, when the oracle accepted or
// rejected fewer than 10% of a version's generated inputs, rejected an example, or when an
// example of the group has a kind and version no CRD serves.
func TestExtensionsDifferential(t *testing.T) {
	r, err := gatewayRelease()
	if err != nil {
		t.Fatal(err)
	}
	subj := startExtensionsSubject(t, r)
	if missed := r.unservedExamples(); len(missed) > 0 {
		t.Errorf("examples of Gateway API kinds no served version takes: %v", missed)
	}
	releaseDifferential(t, subj, r, r.servedKinds(), extensionsDivergences, 1000)
}

// releaseDifferential runs, for each of kinds (served versions of r's CRDs) in a parallel
// subtest, the release's inputs (extensionsInputs: examples, cases, then extensionsPerKind
// generated inputs per kind shared by its versions, from seed+i for the i-th) through subj
// and the kind's oracle (diffKind, with table).
func releaseDifferential(t *testing.T, subj *subject, r *release, kinds []kindUnderTest, table []divergence, seed uint64) {
	versions := map[string]int{}
	for _, k := range kinds {
		versions[k.kind]++
	}
	for i, k := range kinds {
		t.Run(k.name(), func(t *testing.T) {
			t.Parallel()
			tg := newTarget(t, k)
			n := (perKind(extensionsPerKind) + versions[k.kind] - 1) / versions[k.kind]
			fixed, namespaces, generated := extensionsInputs(r, tg, seed+uint64(i), n)
			diffKind(t, subj, tg, "the oracle", fixed, namespaces, generated, table)
		})
	}
}

// extensionsFuzz is FuzzDifferential's part of the extensions differential: every served
// version of the release CRDs on one extensions server.
type extensionsFuzz struct {
	subj    *subject
	targets []*target
}

// newExtensionsFuzz starts the extensions subject for t and, when add is not nil, gives it
// three seed inputs per target, with kind numbers from first on (FuzzDifferential's kinds come
// first).
func newExtensionsFuzz(t testing.TB, first int, add func(args ...any)) *extensionsFuzz {
	r, err := gatewayRelease()
	if err != nil {
		t.Fatal(err)
	}
	x := &extensionsFuzz{subj: startExtensionsSubject(t, r)}
	for i, k := range r.servedKinds() {
		x.targets = append(x.targets, newTarget(t, k))
		if add != nil {
			add(uint8(first+i), uint64(i+1), uint8(0))
			add(uint8(first+i), uint64(i+100), uint8(1))
			add(uint8(first+i), uint64(i+200), uint8(6))
		}
	}
	return x
}

// check draws one input of target i from seed, with mutations%4 mutations and, when
// mutations&4 is set, a sibling first (drawSibling), and fails t on a difference
// extensionsDivergences does not explain.
func (x *extensionsFuzz) check(t *testing.T, i int, seed uint64, mutations uint8) {
	tg := x.targets[i]
	var in input
	if mutations&4 != 0 {
		in = tg.drawSibling(newGenerator(seed), 0, int(mutations%4))
	} else {
		in = tg.draw(newGenerator(seed), 0, int(mutations%4))
	}
	in.name = fmt.Sprintf("%s seed %d", tg.name(), seed)
	in.table = extensionsDivergences
	tg.run(x.subj, &in)
	if bad := in.unexplained(nil); len(bad) > 0 {
		t.Errorf("an unexplained divergence:\n%s\n  unexplained:\n    %s", in.describe(), strings.ReplaceAll(summary(bad), "\n", "\n    "))
	}
}
