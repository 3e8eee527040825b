package scaffold_test

import (
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestKubebuilderProjectServed runs `apigen init` in a kubebuilder v4 project
// (testdata/kubebuilder: PROJECT, a Makefile, cmd/main.go running a controller-runtime
// manager, api/v1, the storage version and Hub, and api/v2 with ConvertTo/ConvertFrom written
// against controller-runtime's conversion package, each with groupversion_info.go and
// controller-gen's zz_generated.deepcopy.go, kubebuilder's config/samples), as a user would,
// and checks that:
//   - every file the project had is kept byte for byte; the Makefile, .gitignore and go.mod
//     only gain lines at their end;
//   - make apiserver-generate leaves controller-gen's deepcopy alone and make apiserver-test
//     passes (the server's end-to-end test creates the project's own sample, and the generated
//     round-trip test of api/v2/install converts CronJobs between v1 and v2 with the project's
//     api/v2/fuzzer);
//   - go build -o bin/ ./... builds every package, the manager and the server;
//   - the server serves the project's samples (kubectl apply -k config/samples), each version
//     reads the other's objects through the project's conversion, and one it refuses fails
//     with kube's wording of a failing conversion webhook;
//   - the project's unchanged manager reconciles both samples through the server
//     (status.observedGeneration written through /status);
//   - the other way in: the same api/, copied unchanged into a new apigen repository (its
//     group listed in groups.go by hand), generates and passes that repository's make test.
//
// It prints the time from apigen init to the first kubectl get of the kind.
func TestKubebuilderProjectServed(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test skipped in -short mode")
	}
	t.Parallel()
	tmp := t.TempDir()
	apigen := buildApigen(t, tmp)
	repo := filepath.Join(tmp, "cronjob")
	if err := os.CopyFS(repo, os.DirFS(filepath.Join(checkout(t), "scaffold", "testdata", "kubebuilder"))); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, repo)
	const long = 10 * time.Minute

	start := time.Now()
	runIn(t, repo, long, apigen, "init")
	after := snapshot(t, repo)
	appended := []string{"Makefile", ".gitignore"}
	for _, f := range slices.Sorted(maps.Keys(before)) {
		switch {
		case f == "go.sum":
		case f == "go.mod": // tidied: its requirements kept, apigen's added
			for _, want := range []string{"module example.com/cronjob\n", "sigs.k8s.io/controller-runtime v0.25.2", "tool github.com/apigen-dev/apigen/cmd/apigen"} {
				if !strings.Contains(after[f], want) {
					t.Errorf("go.mod after init lacks %q:\n%s", want, after[f])
				}
			}
		case slices.Contains(appended, f):
			if !strings.HasPrefix(after[f], before[f]) || after[f] == before[f] {
				t.Errorf("init did not append to %s, keeping its content:\n%s", f, after[f])
			}
		case after[f] != before[f]:
			t.Errorf("init changed the project's %s", f)
		}
	}
	for _, f := range []string{"cmd/cronjob-apiserver/main.go", "cmd/cronjob-apiserver/main_test.go", "cmd/cronjob-apiserver/generate.go",
		"cmd/cronjob-apiserver/groups.go", "config/apiserver/apis.yaml", ".github/workflows/apiserver.yaml"} {
		if _, ok := after[f]; !ok {
			t.Errorf("init wrote no %s", f)
		}
	}
	for f, want := range map[string]string{
		"Makefile":                         "apiserver-verify-api: ## apiserver-verify, and exit 1 on a breaking API change",
		".github/workflows/apiserver.yaml": "if: github.event_name == 'pull_request'\n        run: make apiserver-verify-api APISERVER_BASE=origin/${{ github.base_ref }}\n",
	} {
		if !strings.Contains(after[f], want) {
			t.Errorf("%s after init lacks %q:\n%s", f, want, after[f])
		}
	}
	if groups := after["cmd/cronjob-apiserver/groups.go"]; !strings.Contains(groups, `"example.com/cronjob/api/v2/install"`) {
		t.Errorf("groups.go does not list the install package below the most preferred version, api/v2:\n%s", groups)
	}
	if again := runIn(t, repo, long, apigen, "init"); !strings.Contains(again, "apigen init: 0 files written") {
		t.Errorf("a second init changed files:\n%s", again)
	}

	runIn(t, repo, long, "make", "apiserver-generate")
	generated := snapshot(t, repo)
	for _, v := range []string{"v1", "v2"} {
		if f := "api/" + v + "/zz_generated.deepcopy.go"; generated[f] != before[f] {
			t.Errorf("apigen rewrote controller-gen's %s", f)
		}
	}
	for _, f := range []string{"api/v2/install/zz_generated.install.go", "config/crd/batch.tutorial.kubebuilder.io_cronjobs.yaml",
		"config/samples/generated/batch.tutorial.kubebuilder.io_v1_cronjob.yaml", "config/samples/generated/batch.tutorial.kubebuilder.io_v2_cronjob.yaml"} {
		if _, ok := generated[f]; !ok {
			t.Errorf("make apiserver-generate wrote no %s", f)
		}
	}
	if out := runIn(t, repo, long, "make", "apiserver-test"); !strings.Contains(out, "ok  \texample.com/cronjob/cmd/cronjob-apiserver") ||
		!strings.Contains(out, "ok  \texample.com/cronjob/api/v2/install") {
		t.Errorf("make apiserver-test did not run the server's test and the generated round-trip test:\n%s", out)
	}
	// go build -o bin/ ./... builds every package and writes both commands, the manager as
	// bin/cmd (a plain go build ./... would link them only to throw them away).
	runIn(t, repo, long, "go", "build", "-o", "bin/", "./...")
	runIn(t, repo, long, "make", "apiserver-build")
	srv := startServer(t, filepath.Join(repo, "bin", "cronjob-apiserver"), filepath.Join(tmp, "data"))
	srv.kubectl(t, "apply", "-k", filepath.Join(repo, "config/samples"))
	if out := srv.kubectl(t, "get", "cronjobs"); !strings.Contains(out, "cronjob-sample") {
		t.Fatalf("kubectl get cronjobs:\n%s", out)
	}
	t.Logf("apigen init to the first kubectl get cronjobs: %s (init, generate, make apiserver-test, go build -o bin/ ./..., server start)",
		time.Since(start).Round(time.Second))

	// Each version reads the other's objects through the project's ConvertTo/ConvertFrom.
	const v1, v2 = "cronjobs.v1.batch.tutorial.kubebuilder.io", "cronjobs.v2.batch.tutorial.kubebuilder.io"
	for _, c := range []struct{ resource, name, path, want string }{
		{v2, "cronjob-sample", "{.spec.schedule.minute} {.spec.schedule.hour} {.spec.concurrencyPolicy}", "*/1 * Forbid"},
		{v1, "cronjob-sample-v2", "{.spec.schedule} {.spec.concurrencyPolicy}", "*/5 9-17 * * * Allow"},
	} {
		if out := srv.kubectl(t, "get", c.resource, c.name, "-o", "jsonpath="+c.path); out != c.want {
			t.Errorf("kubectl get %s %s: %q, want %q", c.resource, c.name, out, c.want)
		}
	}
	// A v1 object the v2 conversion refuses reads back in v1 and fails in v2 as a failing
	// conversion webhook does in kube.
	bad := filepath.Join(tmp, "bad.yaml")
	if err := os.WriteFile(bad, []byte("apiVersion: batch.tutorial.kubebuilder.io/v1\nkind: CronJob\nmetadata:\n  name: daily\nspec:\n  schedule: daily\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv.kubectl(t, "create", "-f", bad)
	out, err := tryIn(repo, time.Minute, kubectlPath, "--kubeconfig", srv.kubeconfig, "get", v2, "daily")
	// kube names the version converted from, the stored v1 (webhook_converter.go).
	if want := `conversion webhook for batch.tutorial.kubebuilder.io/v1, Kind=CronJob failed: schedule "daily" is not five cron fields`; err == nil || !strings.Contains(out, want) {
		t.Errorf("kubectl get %s daily: %v\n%s\nwant an error containing %s", v2, err, out, want)
	}
	srv.kubectl(t, "delete", v1, "daily")

	// The project's own manager, unchanged, against the server.
	manager := exec.Command(filepath.Join(repo, "bin", "cmd"), "--health-probe-bind-address=0", "--metrics-bind-address=0")
	manager.Env = append(os.Environ(), "KUBECONFIG="+srv.kubeconfig)
	var logs strings.Builder
	manager.Stdout, manager.Stderr = &logs, &logs
	if err := manager.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = manager.Process.Kill(); _ = manager.Wait() })
	deadline := time.Now().Add(time.Minute)
	for {
		out, _ := tryIn(repo, time.Minute, kubectlPath, "--kubeconfig", srv.kubeconfig, "get", v1, "-o", "jsonpath={.items[*].status.observedGeneration}")
		if out == "1 1" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the manager did not reconcile both samples within 1m (status.observedGeneration %q); its log:\n%s", out, logs.String())
		}
		time.Sleep(200 * time.Millisecond)
	}

	// The other way in: a new apigen repository (apigen init example.com/cronjob) into which
	// the project's api/ is copied unchanged. The brought group is listed in groups.go by hand
	// and generated from the module root, as the README says.
	newRepo := filepath.Join(tmp, "new", "cronjob")
	if err := os.MkdirAll(filepath.Dir(newRepo), 0o755); err != nil {
		t.Fatal(err)
	}
	runIn(t, filepath.Dir(newRepo), long, apigen, "init", "example.com/cronjob")
	if err := os.CopyFS(filepath.Join(newRepo, "api"), os.DirFS(filepath.Join(checkout(t), "scaffold", "testdata", "kubebuilder", "api"))); err != nil {
		t.Fatal(err)
	}
	runIn(t, newRepo, long, "go", "get", "sigs.k8s.io/controller-runtime@v0.25.2")
	runIn(t, newRepo, long, "go", "tool", "apigen", "generate", "./...")
	groupsGo := "package main\n\nimport (\n\t\"github.com/apigen-dev/apigen/runtime/app\"\n\tbatchinstall \"example.com/cronjob/api/v2/install\"\n)\n\n" +
		"var groups = []app.GroupBuilder{batchinstall.NewAPIGroupInfo}\n"
	if err := os.WriteFile(filepath.Join(newRepo, "cmd", "cronjob-apiserver", "groups.go"), []byte(groupsGo), 0o644); err != nil {
		t.Fatal(err)
	}
	runIn(t, newRepo, long, "go", "mod", "tidy")
	if out := runIn(t, newRepo, long, "make", "test"); !strings.Contains(out, "ok  \texample.com/cronjob/cmd/cronjob-apiserver") {
		t.Errorf("make test in the new repository did not run the server's test:\n%s", out)
	}
	for _, v := range []string{"v1", "v2"} {
		copied, err := os.ReadFile(filepath.Join(newRepo, "api", v, "zz_generated.deepcopy.go"))
		if f := "api/" + v + "/zz_generated.deepcopy.go"; err != nil || string(copied) != before[f] {
			t.Errorf("the copied %s changed: %v", f, err)
		}
	}
}
