package scaffold_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/apigen-dev/apigen/internal/deploycheck"
	"github.com/apigen-dev/apigen/runtime/app"
)

// TestScaffoldEndToEnd follows a new user, with a released apigen, from an empty directory to
// a served, two-version API: apigen installed with go install from a module proxy this checkout
// is published to (installRelease: offline, no replace in the new go.mod), apigen init,
// create api (v1), go generate (types' code and the kind's typed clients in pkg/generated),
// make test in the new repository, the server answering kubectl; create api again changing
// nothing and a clashing one writing nothing; apigen verify failing on an edited type with a
// diff naming the file, then passing after go generate; make verify-api, which the CI
// template runs on a pull request, failing on a minimum raised against the commit of the API
// so far (the repository made a git one for it); a second version (v1beta1) creating
// the hub package and conversions, with the object stored through v1 served by both versions;
// after each served step, the deploy manifests (config/deploy) built with kustomize and
// checked against the server's flags and the group versions its discovery lists.
//
// It runs in t.TempDir(), kubectl at /usr/bin/kubectl, servers on free loopback ports. (A
// repository whose go.mod replaces apigen with a checkout, as apigen init writes one when run
// from a checkout, is TestInitWritesGofmtCleanRepo's; the kubebuilder and Gateway API tests
// build such repositories.)
func TestScaffoldEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test skipped in -short mode")
	}
	if _, err := os.Stat(kubectlPath); err != nil {
		t.Fatalf("kubectl is required at %s: %v", kubectlPath, err)
	}
	t.Parallel()
	tmp := t.TempDir()
	rel := installRelease(t, tmp)
	apigen, runIn, tryIn := rel.apigen, rel.run, rel.try
	repo := filepath.Join(tmp, "shop")
	dataDir := filepath.Join(tmp, "data")
	serverBin := filepath.Join(repo, "bin", "shop-apiserver")
	const long = 10 * time.Minute

	steps := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"init", func(t *testing.T) {
			out := runIn(t, tmp, long, apigen, "init", "example.com/shop")
			for _, f := range []string{"go.mod", "go.sum", "Makefile", "README.md", ".gitignore", ".github/workflows/ci.yaml",
				"apis/doc.go", "cmd/shop-apiserver/main.go", "cmd/shop-apiserver/main_test.go", "cmd/shop-apiserver/groups.go",
				"config/deploy/kustomization.yaml", "config/deploy/Dockerfile", "config/deploy/apis.yaml"} {
				if _, err := os.Stat(filepath.Join(repo, f)); err != nil {
					t.Errorf("init did not write %s: %v\n%s", f, err, out)
				}
			}
			gomod, err := os.ReadFile(filepath.Join(repo, "go.mod"))
			if err != nil {
				t.Fatal(err)
			}
			requires := regexp.MustCompile(`(?m)^(require)?\s*github\.com/apigen-dev/apigen ` + regexp.QuoteMeta(rel.version) + `$`)
			if !requires.Match(gomod) || strings.Contains(string(gomod), "replace") ||
				!strings.Contains(string(gomod), "tool github.com/apigen-dev/apigen/cmd/apigen") {
				t.Errorf("go.mod of an installed apigen's init should require %s with no replace and list the apigen tool:\n%s", rel.version, gomod)
			}
			if !strings.Contains(out, "go.mod requires github.com/apigen-dev/apigen "+rel.version+" (this apigen's version), with no replace") {
				t.Errorf("init does not say which apigen go.mod requires:\n%s", out)
			}
		}},
		{"create api v1", func(t *testing.T) {
			runIn(t, repo, time.Minute, apigen, "create", "api", "--group", "shop.example.com", "--version", "v1", "--kind", "Order")
			before := snapshot(t, repo)
			out := runIn(t, repo, time.Minute, apigen, "create", "api", "--group", "shop.example.com", "--version", "v1", "--kind", "Order")
			if diff := cmp.Diff(before, snapshot(t, repo)); diff != "" || !strings.Contains(out, "nothing changed") {
				t.Errorf("create api twice changed files (-first +second):\n%s\n%s", diff, out)
			}
			out, err := tryIn(repo, time.Minute, apigen, "create", "api", "--group", "shop.example.com", "--version", "v1", "--kind", "Order", "--status")
			if code := exitCode(err); code != 1 || !strings.Contains(out, "kind Order exists in apis/shop/v1 with --namespaced=true --status=false") {
				t.Errorf("clashing create api: exit %d, want 1 and the clash named:\n%s", code, out)
			}
			if diff := cmp.Diff(before, snapshot(t, repo)); diff != "" {
				t.Errorf("clashing create api changed files:\n%s", diff)
			}
		}},
		{"create api --storage=rest", func(t *testing.T) {
			// A kind whose REST the user writes: the stub serves an empty resource, which
			// make test (TestServeEveryKind, read-only) and the served steps below check.
			runIn(t, repo, time.Minute, apigen, "create", "api", "--group", "shop.example.com", "--version", "v1", "--kind", "Stock", "--storage=rest")
			if _, err := os.Stat(filepath.Join(repo, "apis/shop/v1/install/stock_rest.go")); err != nil {
				t.Errorf("create api --storage=rest wrote no stub: %v", err)
			}
		}},
		{"create api --storage=interface", func(t *testing.T) {
			// A kind whose storage.Interface the user writes: the stub keeps its objects in
			// memory, which make test (TestServeEveryKind: create, get, list, watch, delete)
			// checks.
			runIn(t, repo, time.Minute, apigen, "create", "api", "--group", "shop.example.com", "--version", "v1", "--kind", "Ledger", "--storage=interface")
			if _, err := os.Stat(filepath.Join(repo, "apis/shop/v1/install/ledger_storage.go")); err != nil {
				t.Errorf("create api --storage=interface wrote no stub: %v", err)
			}
		}},
		{"generate and make test", func(t *testing.T) {
			// The user's own fields, required and constrained: the generated sample must
			// satisfy them with no sample edited.
			types := filepath.Join(repo, "apis/shop/v1/order_types.go")
			src, err := os.ReadFile(types)
			if err != nil {
				t.Fatal(err)
			}
			anchor := "\tDescription string `json:\"description,omitempty\"`\n"
			edited := strings.Replace(string(src), anchor, anchor+requiredOrderFields, 1)
			if edited == string(src) {
				t.Fatalf("%s has no Description field to add fields after", types)
			}
			if err := os.WriteFile(types, []byte(edited), 0o644); err != nil {
				t.Fatal(err)
			}
			runIn(t, repo, long, "go", "generate", "./...")
			// The +genclient kind gets client-gen-compatible clients, which make test vets.
			for _, f := range []string{"pkg/generated/clientset/versioned/clientset.go", "pkg/generated/clientset/versioned/typed/shop/v1/order.go",
				"pkg/generated/clientset/versioned/fake/clientset_generated.go", "pkg/generated/listers/shop/v1/order.go",
				"pkg/generated/informers/externalversions/shop/v1/order.go", "pkg/generated/applyconfiguration/shop/v1/order.go"} {
				if _, err := os.Stat(filepath.Join(repo, f)); err != nil {
					t.Errorf("go generate wrote no %s: %v", f, err)
				}
			}
			out := runIn(t, repo, long, "make", "test")
			if !strings.Contains(out, "ok  \texample.com/shop/cmd/shop-apiserver") {
				t.Errorf("make test did not run the server's end-to-end test:\n%s", out)
			}
			// and the group's generated round-trip test (zz_generated.roundtrip_test.go)
			if !strings.Contains(out, "ok  \texample.com/shop/apis/shop/v1/install") {
				t.Errorf("make test did not run the generated round-trip test of apis/shop/v1/install:\n%s", out)
			}
		}},
		{"serve v1", func(t *testing.T) {
			runIn(t, repo, long, "make", "build")
			srv := startServer(t, serverBin, dataDir)
			srv.kubectl(t, "apply", "-f", filepath.Join(repo, "config/samples/generated/shop.example.com_v1_order.yaml"))
			if out := srv.kubectl(t, "get", "orders"); !strings.Contains(out, "order-sample") {
				t.Errorf("kubectl get orders:\n%s", out)
			}
			checkStub(t, srv)
			// Ledger's stub storage keeps objects in memory.
			srv.kubectl(t, "create", "-f", filepath.Join(repo, "config/samples/generated/shop.example.com_v1_ledger.yaml"))
			if out := srv.kubectl(t, "get", "ledgers", "-o", "name"); !strings.Contains(out, "ledger.shop.example.com/ledger-sample") {
				t.Errorf("kubectl get ledgers, kept in memory by the stub: %q", out)
			}
			checkDeployManifests(t, srv, repo)
			srv.stop(t)
		}},
		{"verify detects an edited type", func(t *testing.T) {
			types := filepath.Join(repo, "apis/shop/v1/order_types.go")
			src, err := os.ReadFile(types)
			if err != nil {
				t.Fatal(err)
			}
			anchor := "\tDescription string `json:\"description,omitempty\"`\n"
			edited := strings.Replace(string(src), anchor, anchor+"\t// Tags label the order.\n\t// +optional\n\tTags []string `json:\"tags,omitempty\"`\n", 1)
			if edited == string(src) {
				t.Fatalf("%s has no Description field to edit next to", types)
			}
			if err := os.WriteFile(types, []byte(edited), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := tryIn(repo, long, "go", "tool", "apigen", "verify", "./...")
			if code := exitCode(err); code != 1 || !strings.Contains(out, "+++ b/apis/shop/v1/zz_generated.deepcopy.go") ||
				!strings.Contains(out, "+\t\t*out = make([]string, len(*in))") {
				t.Errorf("verify after editing types: exit %d, want 1 and a diff of apis/shop/v1/zz_generated.deepcopy.go:\n%s", code, out)
			}
			runIn(t, repo, long, "go", "generate", "./...")
			if out := runIn(t, repo, long, "go", "tool", "apigen", "verify", "./..."); !strings.Contains(out, "all up to date") {
				t.Errorf("verify after generate:\n%s", out)
			}
		}},
		{"go generate removing a stale file", func(t *testing.T) {
			// A generated file no generator produces any more (as after a kind loses
			// +genclient): go generate listed it before apigen ran and reads it after.
			stale := filepath.Join(repo, "apis/shop/v1/zz_generated.stale.go")
			if err := os.WriteFile(stale, []byte("// Code generated by apigen. DO NOT EDIT.\n\npackage v1\n\nvar stale = 1\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			runIn(t, repo, long, "go", "generate", "./...")
			runIn(t, repo, long, "go", "build", "./apis/...") // the emptied file's package and those importing it; no command to link
			if out := runIn(t, repo, long, "go", "tool", "apigen", "verify", "./..."); !strings.Contains(out, "all up to date") {
				t.Errorf("verify after go generate emptied a stale file:\n%s", out)
			}
			runIn(t, repo, long, "go", "generate", "./...")
			if _, err := os.Stat(stale); !os.IsNotExist(err) {
				t.Errorf("the stale file is still there after a second go generate: %v", err)
			}
		}},
		{"make verify-api fails on a breaking change", func(t *testing.T) {
			// What CI runs on a pull request (make verify-api BASE=origin/<base branch>),
			// against the commit of the API so far: a minimum raised is breaking.
			git := func(args ...string) {
				t.Helper()
				runIn(t, repo, time.Minute, "git", append([]string{"-c", "user.name=apigen test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false"}, args...)...)
			}
			git("init", "-q")
			git("add", "-A")
			git("commit", "-q", "-m", "the API so far")
			types := filepath.Join(repo, "apis/shop/v1/order_types.go")
			src, err := os.ReadFile(types)
			if err != nil {
				t.Fatal(err)
			}
			edited := strings.Replace(string(src), "// +kubebuilder:validation:Minimum=1\n", "// +kubebuilder:validation:Minimum=2\n", 1)
			if edited == string(src) {
				t.Fatalf("%s has no Minimum=1 to raise", types)
			}
			if err := os.WriteFile(types, []byte(edited), 0o644); err != nil {
				t.Fatal(err)
			}
			line := slices.IndexFunc(strings.Split(edited, "\n"), func(l string) bool { return strings.Contains(l, "Quantity int32") }) + 1
			runIn(t, repo, long, "go", "generate", "./...")
			out, err := tryIn(repo, long, "make", "verify-api", "BASE=HEAD")
			want := fmt.Sprintf("apis/shop/v1/order_types.go:%d:2: breaking: minimum of .spec.quantity changes from 1 to 2", line)
			if code := exitCode(err); code != 2 || !strings.Contains(out, want) || !strings.Contains(out, "[minimum-raised]") ||
				!strings.Contains(out, "1 breaking change(s) not allowed") || !strings.Contains(out, "all up to date") {
				t.Errorf("make verify-api BASE=HEAD after raising a minimum: exit %d, want make's 2, the generated files up to date and %q:\n%s", code, want, out)
			}
			git("checkout", "-q", "--", ".")
		}},
		{"second version", func(t *testing.T) {
			runIn(t, repo, time.Minute, apigen, "create", "api", "--group", "shop.example.com", "--version", "v1beta1", "--kind", "Order")
			for _, f := range []string{"apis/shop/doc.go", "apis/shop/order_types.go", "apis/shop/v1beta1/order_types.go"} {
				if _, err := os.Stat(filepath.Join(repo, f)); err != nil {
					t.Errorf("no %s after adding v1beta1: %v", f, err)
				}
			}
			if _, err := os.Stat(filepath.Join(repo, "apis/shop/v1/install")); !os.IsNotExist(err) {
				t.Errorf("the single version's install package is still there: %v", err)
			}
			runIn(t, repo, long, "make", "generate") // go generate, then go mod tidy
			if out, err := tryIn(repo, long, "go", "mod", "tidy", "-diff"); err != nil {
				t.Errorf("go.mod is not tidy after make generate: %v\n%s", err, out)
			}
			if _, err := os.Stat(filepath.Join(repo, "pkg/generated/listers/shop/v1beta1/order.go")); err != nil {
				t.Errorf("no lister of the second version: %v", err)
			}
			for _, v := range []string{"v1", "v1beta1"} {
				conv, err := os.ReadFile(filepath.Join(repo, "apis/shop", v, "zz_generated.conversion.go"))
				if err != nil || !strings.Contains(string(conv), "func Convert_"+v+"_OrderSpec_To_shop_OrderSpec(") {
					t.Errorf("%s has no generated conversion to the hub: %v", v, err)
				}
			}
			out := runIn(t, repo, long, "make", "test")
			if !strings.Contains(out, "ok  \texample.com/shop/cmd/shop-apiserver") ||
				!strings.Contains(out, "ok  \texample.com/shop/apis/shop/install") { // the round trip through both versions
				t.Errorf("make test:\n%s", out)
			}
			runIn(t, repo, long, "make", "build")
			srv := startServer(t, serverBin, dataDir)
			for _, resource := range []string{"orders.v1.shop.example.com", "orders.v1beta1.shop.example.com"} {
				if out := srv.kubectl(t, "get", resource, "order-sample", "-o", "jsonpath={.apiVersion} {.spec.tier} {.spec.quantity}"); !strings.Contains(out, "shop.example.com/") ||
					!strings.Contains(out, " Basic 1") {
					t.Errorf("kubectl get %s order-sample: %q", resource, out)
				}
			}
			if _, err := os.Stat(filepath.Join(repo, "apis/shop/install/stock_rest.go")); err != nil {
				t.Errorf("the stub of Stock's REST did not move to the hub's install package: %v", err)
			}
			checkStub(t, srv)
			if _, err := os.Stat(filepath.Join(repo, "apis/shop/install/ledger_storage.go")); err != nil {
				t.Errorf("the stub of Ledger's storage did not move to the hub's install package: %v", err)
			}
			srv.kubectl(t, "get", "ledgers") // served from the hub's install package, as Order
			checkDeployManifests(t, srv, repo)
		}},
	}
	for _, s := range steps {
		if !t.Run(s.name, s.run) {
			return
		}
	}
}

// requiredOrderFields are fields a user adds to the scaffolded Order: required, with an enum,
// a minimum and a pattern, which the sample apigen generates must satisfy.
const requiredOrderFields = "\t// Tier is the order's service tier.\n\t// +required\n\t// +kubebuilder:validation:Enum=Basic;Premium\n" +
	"\tTier string `json:\"tier\"`\n" +
	"\t// Quantity is how many items are ordered, at least 1.\n\t// +required\n\t// +kubebuilder:validation:Minimum=1\n" +
	"\tQuantity int32 `json:\"quantity\"`\n" +
	"\t// Reference is three capitals, a dash and four digits.\n\t// +required\n\t// +kubebuilder:validation:Pattern=`^[A-Z]{3}-[0-9]{4}$`\n" +
	"\tReference string `json:\"reference\"`\n"

// checkStub checks the resource of the --storage=rest stub: empty, get 404, and listed in
// discovery with the verbs the stub implements only.
func checkStub(t *testing.T, srv *server) {
	t.Helper()
	if out := srv.kubectl(t, "get", "stocks"); !strings.Contains(out, "No resources found") {
		t.Errorf("kubectl get stocks of the stub:\n%s", out)
	}
	if out := srv.kubectl(t, "api-resources", "--api-group=shop.example.com", "-o", "wide"); !regexp.MustCompile(`(?m)^stocks .* get,list,watch\s*$`).MatchString(out) {
		t.Errorf("kubectl api-resources: stocks should list get,list,watch only:\n%s", out)
	}
	if out, err := srv.try("get", "stock", "nope"); err == nil || !strings.Contains(out, `stocks.shop.example.com "nope" not found`) {
		t.Errorf("kubectl get stock nope of the stub: %v\n%s", err, out)
	}
}

// try runs kubectl with the server's kubeconfig, returning its combined output and error.
func (s *server) try(args ...string) (string, error) {
	out, err := exec.Command(kubectlPath, append([]string{"--kubeconfig", s.kubeconfig}, args...)...).CombinedOutput()
	return string(out), err
}

// checkDeployManifests builds the repository's config/deploy with kustomize and checks it
// (deploycheck) against the running server: the container's flags are runtime/app's, which
// the server is built on, and the APIServices cover exactly the group versions the server's
// discovery lists besides the runtime's own groups.
func checkDeployManifests(t *testing.T, srv *server, repo string) {
	t.Helper()
	var list metav1.APIGroupList
	if err := json.Unmarshal([]byte(srv.kubectl(t, "get", "--raw", "/apis")), &list); err != nil {
		t.Fatalf("discovery: %v", err)
	}
	var served []schema.GroupVersion
	for _, g := range list.Groups {
		if g.Name == "autoscaling" || slices.Contains(app.BuiltinGroups, g.Name) {
			continue // the runtime's groups, served by every server
		}
		for _, v := range g.Versions {
			served = append(served, schema.GroupVersion{Group: g.Name, Version: v.Version})
		}
	}
	if len(served) == 0 {
		t.Fatalf("discovery lists none of the repository's groups:\n%+v", list)
	}
	m, err := deploycheck.Build(filepath.Join(repo, "config", "deploy"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range m.Check(served) {
		t.Errorf("config/deploy against the server serving %v: %s", served, p)
	}
	for _, p := range deploycheck.CheckDockerfile(filepath.Join(repo, "config", "deploy", "Dockerfile"), repo) {
		t.Errorf("config/deploy/Dockerfile: %s", p)
	}
}

// exitCode returns the process exit code of a command's error: 0 for nil, -1 when it did not exit.
func exitCode(err error) int {
	if err == nil {
		return 0
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	return -1
}
