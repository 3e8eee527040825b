package scaffold

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/internal/deploycheck"
)

var update = flag.Bool("update", false, "rewrite example-api/config/deploy from the deploy templates")

// TestExampleDeploy: example-api/config/deploy is what the deploy templates render for the
// example server and the groups under example-api/apis, as init and create api would
// render them for a repository of its own; -update rewrites it.
func TestExampleDeploy(t *testing.T) {
	root, err := filepath.Abs("../example-api")
	if err != nil {
		t.Fatal(err)
	}
	r := &repo{root: root}
	groups, err := r.groups()
	if err != nil {
		t.Fatal(err)
	}
	data := deployData{Server: "example-apiserver", Namespace: "example-system", Service: "example-apiserver",
		Dir: "example-api/config/deploy", Package: "./example-api/cmd/example-apiserver",
		Regenerate: "`go test ./scaffold -run TestExampleDeploy -update`"}
	for _, g := range groups {
		versions, err := r.servedVersions(g, "")
		if err != nil {
			t.Fatal(err)
		}
		data.Groups = append(data.Groups, deployGroup{Name: g.name, Versions: versions})
	}
	files, err := renderDeploy(data)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "config", "deploy")
	for name, want := range files {
		path := filepath.Join(dir, name)
		if *update {
			if err := writeFile(path, want); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%v (go test ./scaffold -run TestExampleDeploy -update writes it)", err)
		} else if diff := cmp.Diff(string(want), string(got)); diff != "" {
			t.Errorf("%s is not what the templates render; go test ./scaffold -run TestExampleDeploy -update rewrites it (-want +got):\n%s", path, diff)
		}
	}
}

// markedGroupVersions returns the group versions the version packages under root declare
// with +groupName (every apis/<g>/<version>/doc.go), as "group/version".
func markedGroupVersions(t *testing.T, root string) []schema.GroupVersion {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join(root, "apis", "*", "*", "doc.go"))
	if err != nil {
		t.Fatal(err)
	}
	var gvs []schema.GroupVersion
	for _, doc := range docs {
		data, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		if m := regexp.MustCompile(`(?m)^// \+groupName=(\S+)`).FindSubmatch(data); m != nil {
			gvs = append(gvs, schema.GroupVersion{Group: string(m[1]), Version: filepath.Base(filepath.Dir(doc))})
		}
	}
	return gvs
}

// checkDeploy builds root's config/deploy and checks it against served, and its Dockerfile.
func checkDeploy(t *testing.T, root string, served []schema.GroupVersion) {
	t.Helper()
	m, err := deploycheck.Build(filepath.Join(root, deployDir))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range m.Check(served) {
		t.Errorf("%s: %s", deployDir, p)
	}
	for _, p := range deploycheck.CheckDockerfile(filepath.Join(root, deployDir, "Dockerfile"), root) {
		t.Errorf("%s/Dockerfile: %s", deployDir, p)
	}
}

// TestDeployFollowsCreateAPI: the manifests init writes build with kustomize and fit the
// server with no group, and after every create api they hold an APIService per group
// version the repository's +groupName markers declare (a second version, a second group).
func TestDeployFollowsCreateAPI(t *testing.T) {
	root := initRepo(t)
	checkDeploy(t, root, nil)
	for _, opts := range []APIOptions{
		order,
		{Group: "shop.example.com", Version: "v1beta1", Kind: "Order", KindOptions: KindOptions{Namespaced: true}},
		{Group: "billing.example.com", Version: "v1alpha1", Kind: "Invoice"},
	} {
		apply(t, root, opts)
		served := markedGroupVersions(t, root)
		if len(served) == 0 {
			t.Fatal("no +groupName marker found")
		}
		checkDeploy(t, root, served)
	}
	apis := tree(t, root)["config/deploy/apis.yaml"]
	var names []string
	for _, m := range regexp.MustCompile(`(?m)^  name: (v\S+)$`).FindAllStringSubmatch(apis, -1) {
		names = append(names, m[1])
	}
	sort.Strings(names)
	if diff := cmp.Diff([]string{"v1.shop.example.com", "v1alpha1.billing.example.com", "v1beta1.shop.example.com"}, names); diff != "" {
		t.Errorf("APIServices (-want +got):\n%s\n%s", diff, apis)
	}
}

// TestDeployAPIsServedVersionsAndService: a version whose every kind is
// +kubebuilder:unservedversion gets no APIService, and the APIServices follow the Service
// service.yaml declares.
func TestDeployAPIsServedVersionsAndService(t *testing.T) {
	root := initRepo(t)
	apply(t, root, order)
	beta := order
	beta.Version = "v1beta1"
	apply(t, root, beta)
	types := filepath.Join(root, "apis/shop/v1beta1/order_types.go")
	src, err := os.ReadFile(types)
	if err != nil {
		t.Fatal(err)
	}
	unserved := strings.Replace(string(src), "// +kubebuilder:object:root=true\n", "// +kubebuilder:object:root=true\n// +kubebuilder:unservedversion\n", 1)
	if unserved == string(src) {
		t.Fatalf("no root marker in %s", types)
	}
	if err := os.WriteFile(types, []byte(unserved), 0o644); err != nil {
		t.Fatal(err)
	}
	service := filepath.Join(root, deployDir, "service.yaml")
	svc, err := os.ReadFile(service)
	if err != nil {
		t.Fatal(err)
	}
	svc = []byte(strings.Replace(string(svc), "  name: shop-apiserver\n  namespace: shop-system\n", "  name: shop-api\n  namespace: shop\n", 1))
	if err := os.WriteFile(service, svc, 0o644); err != nil {
		t.Fatal(err)
	}
	apply(t, root, APIOptions{Group: "shop.example.com", Version: "v1", Kind: "Shelf", KindOptions: KindOptions{Namespaced: true}})
	apis := tree(t, root)["config/deploy/apis.yaml"]
	if strings.Contains(apis, "v1beta1") || !strings.Contains(apis, "name: v1.shop.example.com") {
		t.Errorf("apis.yaml: want an APIService for v1 only, v1beta1 being unserved:\n%s", apis)
	}
	if !strings.Contains(apis, "    namespace: shop\n    name: shop-api\n") {
		t.Errorf("apis.yaml does not name the Service of service.yaml:\n%s", apis)
	}
}

// TestCreateAPIWithoutDeployDir: a repository without config/deploy gets none from create api.
func TestCreateAPIWithoutDeployDir(t *testing.T) {
	root := initRepo(t)
	if err := os.RemoveAll(filepath.Join(root, deployDir)); err != nil {
		t.Fatal(err)
	}
	apply(t, root, order)
	if _, err := os.Stat(filepath.Join(root, deployDir)); !os.IsNotExist(err) {
		t.Errorf("create api wrote %s in a repository without it: %v", deployDir, err)
	}
}
