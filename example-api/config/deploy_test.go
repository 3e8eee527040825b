// Package config_test checks the example's deploy manifests (example-api/config/deploy)
// against example-apiserver.
package config_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	dbinstall "github.com/apigen-dev/apigen/example-api/apis/db/install"
	"github.com/apigen-dev/apigen/internal/deploycheck"
	"github.com/apigen-dev/apigen/runtime/app"
	"github.com/apigen-dev/apigen/runtime/storage/etcd3"
)

// installed are the install packages example-apiserver serves, by import path, as its
// main.go passes them to app.Main; TestDeployManifests checks that main.go imports exactly
// these and that they are every group the packages under example-api/apis declare.
var installed = map[string]app.GroupBuilder{
	"github.com/apigen-dev/apigen/example-api/apis/db/install": dbinstall.NewAPIGroupInfo,
}

// TestDeployManifests builds example-api/config/deploy with kustomize (as kubectl apply -k)
// and checks it against example-apiserver (deploycheck.Manifests.Check): every kind of an
// aggregated API server, the kustomization's image, ports, flags that are the server's
// (runtime/app's options) and validate, and an APIService for exactly each group version
// the server serves, which it reads from the install packages the server links. It checks
// the Dockerfile too.
func TestDeployManifests(t *testing.T) {
	served := servedGroupVersions(t)
	m, err := deploycheck.Build("deploy")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range m.Check(served) {
		t.Error(p)
	}
	for _, p := range deploycheck.CheckDockerfile(filepath.Join("deploy", "Dockerfile"), filepath.Join("..", "..")) {
		t.Errorf("Dockerfile: %s", p)
	}
}

// servedGroupVersions builds the API groups of installed (over storage that is never
// called) and returns the versions each serves. It fails t when installed is not what
// main.go serves or misses a group of example-api/apis.
func servedGroupVersions(t *testing.T) []schema.GroupVersion {
	t.Helper()
	scheme := runtime.NewScheme()
	var served []schema.GroupVersion
	var groups, paths []string
	for path, build := range installed {
		info, err := build(scheme, &etcd3.StorageFactory{Prefix: "/registry"})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		served = append(served, info.PrioritizedVersions...)
		groups = append(groups, info.Group)
		paths = append(paths, path)
	}
	if len(served) == 0 {
		t.Fatal("the install packages serve no group version")
	}
	sort.Strings(paths)
	if diff := cmp.Diff(paths, mainInstallImports(t)); diff != "" {
		t.Errorf("example-apiserver's main.go imports other install packages than this test's installed (-installed +main.go):\n%s", diff)
	}
	sort.Strings(groups)
	if diff := cmp.Diff(groups, declaredGroups(t)); diff != "" {
		t.Errorf("the groups of installed are not those example-api/apis declares with +groupName (-installed +declared):\n%s", diff)
	}
	return served
}

// mainInstallImports returns the install packages example-apiserver's main.go imports,
// sorted.
func mainInstallImports(t *testing.T) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join("..", "cmd", "example-apiserver", "main.go"), nil, parser.ImportsOnly)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, im := range f.Imports {
		if p, _ := strconv.Unquote(im.Path.Value); strings.HasSuffix(p, "/install") {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// declaredGroups returns the groups the doc.go files under example-api/apis declare with
// +groupName, sorted.
func declaredGroups(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(filepath.Join("..", "apis"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.Name() != "doc.go" {
			return err
		}
		data, err := os.ReadFile(path)
		if m := regexp.MustCompile(`(?m)^// \+groupName=(\S+)`).FindSubmatch(data); m != nil && !slices.Contains(out, string(m[1])) {
			out = append(out, string(m[1]))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}
