package scaffold

import (
	"errors"
	"go/format"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// initRepo applies Init for example.com/shop in a temporary directory (no go mod tidy) and
// returns the repository's root.
func initRepo(t *testing.T) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "shop")
	p, err := Init(InitOptions{Module: "example.com/shop", Dir: root, Replace: ".."})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Apply(); err != nil {
		t.Fatal(err)
	}
	return root
}

// apply plans CreateAPI in root and applies it, failing t on an error.
func apply(t *testing.T, root string, opts APIOptions) *Plan {
	t.Helper()
	p, err := CreateAPI(root, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Apply(); err != nil {
		t.Fatal(err)
	}
	return p
}

// tree returns every file under root, relative path -> content.
func tree(t *testing.T, root string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, rerr := os.ReadFile(path)
			rel, _ := filepath.Rel(root, path)
			files[filepath.ToSlash(rel)] = string(data)
			return rerr
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

var order = APIOptions{Group: "shop.example.com", Version: "v1", Kind: "Order", KindOptions: KindOptions{Namespaced: true}}

func TestInitWritesGofmtCleanRepo(t *testing.T) {
	root := initRepo(t)
	files := tree(t, root)
	var names []string
	for name, content := range files {
		names = append(names, name)
		if strings.HasSuffix(name, ".go") {
			if formatted, err := format.Source([]byte(content)); err != nil || string(formatted) != content {
				t.Errorf("%s is not gofmt-clean: %v", name, err)
			}
		}
	}
	want := []string{".github/workflows/ci.yaml", ".gitignore", "Makefile", "README.md", "apis/doc.go",
		"cmd/shop-apiserver/groups.go", "cmd/shop-apiserver/main.go", "cmd/shop-apiserver/main_test.go",
		"config/deploy/Dockerfile", "config/deploy/Dockerfile.dockerignore", "config/deploy/apis.yaml",
		"config/deploy/ca-bundle.yaml", "config/deploy/deployment.yaml", "config/deploy/etcd.yaml",
		"config/deploy/kustomization.yaml", "config/deploy/namespace.yaml", "config/deploy/rbac.yaml",
		"config/deploy/service.yaml", "go.mod"}
	if diff := cmp.Diff(want, sorted(names)); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	checkout, _ := filepath.Abs("..")
	for file, wants := range map[string][]string{
		"go.mod":      {"module example.com/shop\n", "\ngo 1.26\n", "tool github.com/apigen-dev/apigen/cmd/apigen", "replace github.com/apigen-dev/apigen => " + checkout},
		"apis/doc.go": {"//go:generate go tool apigen generate ./..."},
		"Makefile": {"generate:", "verify:", "build:", "run:", "test:", "./cmd/$(SERVER)", "SERVER   := shop-apiserver",
			"BASE     ?= origin/main", "verify-api:\n\t$(GO) tool apigen verify --against $(BASE) ./...\n"},
		".github/workflows/ci.yaml": {"go tool apigen verify ./...", "go test ./...", "fetch-depth: 0",
			"if: github.event_name == 'pull_request'\n        run: make verify-api BASE=origin/${{ github.base_ref }}\n"},
		".gitignore": {"/apiserver-data/"},
		"README.md": {"go generate ./...\nmake run\n", "## Deploy to a cluster", "docker build -t $IMG -f config/deploy/Dockerfile .",
			"kustomize edit set image shop-apiserver=$IMG) && kubectl apply -k config/deploy", "kubectl get apiservices",
			"kubectl -n shop-system create secret tls shop-apiserver-tls"},
		"config/deploy/Dockerfile":         {"RUN CGO_ENABLED=0 go build -trimpath -ldflags=-s -o /out/shop-apiserver ./cmd/shop-apiserver\n"},
		"config/deploy/kustomization.yaml": {"  - name: shop-apiserver\n"},
	} {
		for _, w := range wants {
			if !strings.Contains(files[file], w) {
				t.Errorf("%s lacks %q:\n%s", file, w, files[file])
			}
		}
	}
}

func TestInitClashWritesNothing(t *testing.T) {
	root := filepath.Join(t.TempDir(), "shop")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "Makefile"), []byte("all:\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Init(InitOptions{Module: "example.com/shop", Dir: root, Replace: ".."})
	var clash *ClashError
	if !errors.As(err, &clash) || !strings.Contains(err.Error(), "Makefile exists with other content") {
		t.Fatalf("Init over a foreign Makefile: %v, want a clash naming it", err)
	}
	if files := tree(t, root); len(files) != 1 {
		t.Errorf("a clashing init wrote files: %v", files)
	}
	for _, bad := range []InitOptions{{Module: "Not A Path"}, {Module: "example.com/shop", Name: "Shop!"}, {Module: "example.com/shop", Replace: t.TempDir()}} {
		if _, err := Init(bad); err == nil {
			t.Errorf("Init(%+v) succeeded, want an error", bad)
		}
	}
}

func TestCreateAPITwiceChangesNothing(t *testing.T) {
	root := initRepo(t)
	p := apply(t, root, order)
	want := []string{"create apis/shop/v1/doc.go", "create apis/shop/v1/order_types.go",
		"update cmd/shop-apiserver/groups.go", "update config/deploy/apis.yaml"}
	if diff := cmp.Diff(want, normalize(p.Summary())); diff != "" {
		t.Errorf("plan (-want +got):\n%s", diff)
	}
	files := tree(t, root)
	for file, wants := range map[string][]string{
		"apis/shop/v1/doc.go":          {"+groupName=shop.example.com", "+k8s:deepcopy-gen=package", "package v1"},
		"apis/shop/v1/order_types.go":  {"+kubebuilder:object:root=true", "+kubebuilder:resource:scope=Namespaced", "type OrderList struct", "the desired state of an Order"},
		"cmd/shop-apiserver/groups.go": {`shopinstall "example.com/shop/apis/shop/v1/install"`, "shopinstall.NewAPIGroupInfo,"},
	} {
		for _, w := range wants {
			if !strings.Contains(files[file], w) {
				t.Errorf("%s lacks %q:\n%s", file, w, files[file])
			}
		}
	}
	again, err := CreateAPI(root, order)
	if err != nil || len(again.Changes) != 0 {
		t.Errorf("second CreateAPI: %v, %v; want no changes", err, again.Summary())
	}
}

func TestCreateAPIClashWritesNothing(t *testing.T) {
	root := initRepo(t)
	apply(t, root, order)
	before := tree(t, root)
	withStatus := order
	withStatus.Status = true
	_, err := CreateAPI(root, withStatus)
	if err == nil || !strings.Contains(err.Error(), "kind Order exists in apis/shop/v1 with --namespaced=true --status=false --scale=false; asked for --namespaced=true --status=true") {
		t.Errorf("CreateAPI with other options: %v", err)
	}
	// A new kind whose types file path is taken by a file without the kind: nothing at all
	// is written.
	mine := filepath.Join(root, "apis/shop/v1/shelf_types.go")
	if err := os.WriteFile(mine, []byte("package v1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = CreateAPI(root, APIOptions{Group: "shop.example.com", Version: "v1", Kind: "Shelf"})
	var clash *ClashError
	if !errors.As(err, &clash) || !strings.Contains(err.Error(), "apis/shop/v1/shelf_types.go exists with other content") {
		t.Errorf("CreateAPI over a foreign types file: %v", err)
	}
	before["apis/shop/v1/shelf_types.go"] = "package v1\n"
	if diff := cmp.Diff(before, tree(t, root)); diff != "" {
		t.Errorf("clashing CreateAPI changed files:\n%s", diff)
	}
	for _, bad := range []APIOptions{
		{Group: "shop", Version: "v1", Kind: "Order"},
		{Group: "shop.example.com", Version: "1", Kind: "Order"},
		{Group: "shop.example.com", Version: "v1", Kind: "order"},
		{Group: "shop.example.com", Version: "v1", Kind: "OrderList"},
		{Group: "other.example.com", Version: "v1", Kind: "Order"}, // apis/other is free, fine below
	} {
		if _, err := CreateAPI(root, bad); err == nil && bad.Group != "other.example.com" {
			t.Errorf("CreateAPI(%+v) succeeded, want an error", bad)
		}
	}
	if _, err := CreateAPI(root, APIOptions{Group: "shop.example.org", Version: "v1", Kind: "Order"}); err == nil ||
		!strings.Contains(err.Error(), "apis/shop already holds group shop.example.com") {
		t.Errorf("CreateAPI of another group in apis/shop: %v", err)
	}
}

func TestCreateAPISecondVersionAddsHub(t *testing.T) {
	root := initRepo(t)
	scaled := order
	scaled.Status, scaled.Scale = true, true
	apply(t, root, scaled)
	// what apigen generate would have written for the single-version group
	oldInstall := filepath.Join(root, "apis/shop/v1/install/zz_generated.install.go")
	if err := os.MkdirAll(filepath.Dir(oldInstall), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(oldInstall, []byte("package install\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	v1beta1 := scaled
	v1beta1.Version = "v1beta1"
	p := apply(t, root, v1beta1)
	want := []string{"create apis/shop/doc.go", "create apis/shop/order_types.go", "update apis/shop/v1/doc.go",
		"delete apis/shop/v1/install/zz_generated.install.go", "create apis/shop/v1beta1/doc.go",
		"create apis/shop/v1beta1/order_types.go", "update cmd/shop-apiserver/groups.go", "update config/deploy/apis.yaml"}
	if diff := cmp.Diff(want, normalize(p.Summary())); diff != "" {
		t.Errorf("plan (-want +got):\n%s", diff)
	}
	files := tree(t, root)
	if _, ok := files["apis/shop/v1/install/zz_generated.install.go"]; ok {
		t.Error("the old install package's generated file is still there")
	}
	hub := files["apis/shop/order_types.go"]
	if !strings.HasPrefix(hub, "package shop\n") || !strings.Contains(hub, "+kubebuilder:object:root=true") ||
		strings.Contains(hub, "+kubebuilder:subresource") || strings.Contains(hub, "+optional") || !strings.Contains(hub, "Replicas *int32") {
		t.Errorf("hub types: want package shop, the root markers only, every field:\n%s", hub)
	}
	v1beta1Types := strings.Replace(files["apis/shop/v1beta1/order_types.go"], "package v1beta1", "package v1", 1)
	if v1beta1Types != files["apis/shop/v1/order_types.go"] {
		t.Errorf("v1beta1 types are not a copy of v1's:\n%s", cmp.Diff(files["apis/shop/v1/order_types.go"], v1beta1Types))
	}
	for _, v := range []string{"v1", "v1beta1"} {
		if doc := files["apis/shop/"+v+"/doc.go"]; !strings.Contains(doc, "// +k8s:conversion-gen=example.com/shop/apis/shop\n") {
			t.Errorf("%s/doc.go lacks the conversion marker:\n%s", v, doc)
		}
	}
	if g := files["cmd/shop-apiserver/groups.go"]; !strings.Contains(g, `shopinstall "example.com/shop/apis/shop/install"`) {
		t.Errorf("groups.go does not import the hub's install package:\n%s", g)
	}
	if again, err := CreateAPI(root, v1beta1); err != nil || len(again.Changes) != 0 {
		t.Errorf("second CreateAPI of v1beta1: %v, %v; want no changes", err, again.Summary())
	}
	clusterAlpha := v1beta1
	clusterAlpha.Version, clusterAlpha.Namespaced = "v1alpha1", false
	if _, err := CreateAPI(root, clusterAlpha); err == nil || !strings.Contains(err.Error(), "kind Order is served by apis/shop/v1 with --namespaced=true; every version must agree") {
		t.Errorf("CreateAPI of a cluster-scoped version of a namespaced kind: %v", err)
	}
	// A new kind in a group with a hub gets its hub copy too.
	p = apply(t, root, APIOptions{Group: "shop.example.com", Version: "v1", Kind: "Shelf"})
	if s := normalize(p.Summary()); !strings.Contains(strings.Join(s, "\n"), "create apis/shop/shelf_types.go") {
		t.Errorf("new kind in a hubbed group: %v", s)
	}
}

func TestCopyKindTakesReachableTypesOnly(t *testing.T) {
	srcs, err := parseSources(map[string][]byte{"types.go": []byte(`package v1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"time"
)

// Color is a color.
// +kubebuilder:validation:Enum=red;blue
type Color string

// The colors.
const (
	Red  Color = "red"
	Blue Color = "blue"
)

// Unrelated is not reached from Widget.
type Unrelated struct{ D time.Duration }

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Widget is a widget.
// +kubebuilder:storageversion
type Widget struct {
	metav1.TypeMeta   ` + "`json:\",inline\"`" + `
	metav1.ObjectMeta ` + "`json:\"metadata,omitempty\"`" + `
	Spec WidgetSpec
}

// WidgetSpec is the spec.
type WidgetSpec struct {
	// +optional
	Color Color
	Size resource.Quantity
}

// +kubebuilder:object:root=true

// WidgetList is a list.
type WidgetList struct {
	metav1.TypeMeta
	metav1.ListMeta
	Items []Widget
}
`)})
	if err != nil {
		t.Fatal(err)
	}
	if k := kinds(typeDecls(srcs)); len(k) != 1 || !k["Widget"].Namespaced {
		t.Errorf("kinds = %v, want Widget, namespaced", k)
	}
	version, err := copyKind(srcs, "Widget", "v2", false)
	if err != nil {
		t.Fatal(err)
	}
	v := string(version)
	for _, w := range []string{"package v2\n", `"k8s.io/apimachinery/pkg/api/resource"`, "Red  Color = \"red\"", "+kubebuilder:validation:Enum=red;blue",
		"+k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object", "// +optional"} {
		if !strings.Contains(v, w) {
			t.Errorf("version copy lacks %q:\n%s", w, v)
		}
	}
	for _, bad := range []string{"Unrelated", `"time"`, "storageversion"} {
		if strings.Contains(v, bad) {
			t.Errorf("version copy has %q:\n%s", bad, v)
		}
	}
	hub, err := copyKind(srcs, "Widget", "widgets", true)
	if err != nil {
		t.Fatal(err)
	}
	if h := string(hub); strings.Contains(h, "+optional") || strings.Contains(h, "Enum") || strings.Contains(h, "storageversion") ||
		!strings.Contains(h, "+kubebuilder:object:root=true") || !strings.Contains(h, "+k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object") {
		t.Errorf("hub copy keeps API markers or lost the root marker:\n%s", h)
	}
}

func TestSortVersions(t *testing.T) {
	vs := []string{"v1alpha1", "v1beta1", "v1", "v2beta1", "v2", "v1beta2"}
	sortVersions(vs)
	if diff := cmp.Diff([]string{"v2", "v1", "v2beta1", "v1beta2", "v1beta1", "v1alpha1"}, vs); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

// normalize collapses the padding of Plan.Summary lines.
func normalize(lines []string) []string {
	var out []string
	for _, l := range lines {
		out = append(out, strings.Join(strings.Fields(l), " "))
	}
	return out
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

// TestCreateAPIFindsGroupElsewhere: a group kept in pkg/apis/<group> (sample-apiserver's and
// Kubernetes' layout) gets the new kind there, and its install package stays wired from
// there, instead of a second copy of the group under apis/.
func TestCreateAPIFindsGroupElsewhere(t *testing.T) {
	root := initRepo(t)
	apply(t, root, order)
	if err := os.MkdirAll(filepath.Join(root, "pkg/apis"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(root, "apis/shop"), filepath.Join(root, "pkg/apis/shop")); err != nil {
		t.Fatal(err)
	}
	groupsGo := filepath.Join(root, "cmd/shop-apiserver/groups.go")
	src, err := os.ReadFile(groupsGo)
	if err != nil {
		t.Fatal(err)
	}
	moved := strings.ReplaceAll(string(src), `"example.com/shop/apis/shop/v1/install"`, `"example.com/shop/pkg/apis/shop/v1/install"`)
	if err := os.WriteFile(groupsGo, []byte(moved), 0o644); err != nil {
		t.Fatal(err)
	}
	shelf := APIOptions{Group: "shop.example.com", Version: "v1", Kind: "Shelf", KindOptions: KindOptions{Namespaced: true}}
	p := apply(t, root, shelf)
	want := []string{"create pkg/apis/shop/v1/shelf_types.go"}
	if diff := cmp.Diff(want, normalize(p.Summary())); diff != "" {
		t.Errorf("plan (-want +got):\n%s", diff)
	}
	if _, err := os.Stat(filepath.Join(root, "apis/shop")); !os.IsNotExist(err) {
		t.Errorf("create api made a second copy of the group under apis/: %v", err)
	}
	if got, _ := os.ReadFile(groupsGo); string(got) != moved {
		t.Errorf("groups.go rewired away from pkg/apis:\n%s", got)
	}
}

// TestOneBuildConfiguration fails when an entry point builds with build tags: this checkout's
// Makefile, CI script and image, and every template apigen init writes. A plain go build or
// go test, an editor and these then compile the same packages the same way, so nothing is
// compiled twice.
func TestOneBuildConfiguration(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	paths := []string{"Makefile", ".ci/run", "example-api/config/deploy/Dockerfile"}
	err = filepath.WalkDir(filepath.Join(root, "templates"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(root, path)
			paths = append(paths, rel)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	tags := regexp.MustCompile(`(^|\s|")-tags[= ]`)
	for _, p := range paths {
		data, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			if tags.MatchString(line) {
				t.Errorf("%s:%d builds with build tags, which a plain go build and go test do not: %s", p, i+1, strings.TrimSpace(line))
			}
		}
	}
}

// TestTestTargetsRunRoundTrip: the generated round-trip test (install/zz_generated.roundtrip_test.go
// of every group) runs in the test target of every repository apigen init writes: a new
// repository's `make test` runs go test ./..., and a kubebuilder project's
// `make apiserver-test` and its CI workflow add the install packages below api/ to the server's
// test, which is all they ran before.
func TestTestTargetsRunRoundTrip(t *testing.T) {
	files := tree(t, initRepo(t))
	if mk := files["Makefile"]; !regexp.MustCompile(`(?m)^test: .*\n(\t.*\n)*\t\$\(GO\) test \./\.\.\.\n`).MatchString(mk) {
		t.Errorf("make test does not run go test ./...:\n%s", mk)
	}

	checkout, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	project := filepath.Join(t.TempDir(), "cronjob")
	if err := os.CopyFS(project, os.DirFS(filepath.Join(checkout, "scaffold", "testdata", "kubebuilder"))); err != nil {
		t.Fatal(err)
	}
	p, err := Init(InitOptions{Dir: project, Replace: checkout})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Apply(); err != nil {
		t.Fatal(err)
	}
	files = tree(t, project)
	if mk := files["Makefile"]; !strings.Contains(mk, "\tgo test ./cmd/$(APISERVER)/... $$(go list ./api/... | grep '/install$$')\n") {
		t.Errorf("make apiserver-test does not test the install packages below api/:\n%s", mk)
	}
	if ci := files[".github/workflows/apiserver.yaml"]; !strings.Contains(ci, "run: go test ./cmd/cronjob-apiserver/... $(go list ./api/... | grep '/install$')\n") {
		t.Errorf("the CI workflow does not test the install packages below api/:\n%s", ci)
	}
}
