package runtime

import (
	"encoding/json"
	"io"
	"os/exec"
	"path"
	"strings"
	"testing"
)

// module is apigen's module path.
const module = "github.com/apigen-dev/apigen"

// forbidden lists import-path prefixes no runtime package may depend on, directly or not
// (DESIGN.md section 2): generated servers must not drag the generator in.
var forbidden = []string{
	path.Join(module, "generators"),
	path.Join(module, "example-api"),
	path.Join(module, "cmd"),
	"github.com/dave/jennifer",
	"k8s.io/gengo",
	"golang.org/x/tools/go/packages",
	"k8s.io/apiserver",
}

// allowed lists the packages under a forbidden prefix the runtime may use: k8s.io/apiserver's
// CEL function libraries and the leaf packages they import (DESIGN.md section 3: a library
// that is the reference for a semantics is used, its framework is not).
var allowed = map[string]bool{
	"k8s.io/apiserver/pkg/cel":                           true,
	"k8s.io/apiserver/pkg/cel/common":                    true, // how a custom resource's values bind to CEL
	"k8s.io/apiserver/pkg/cel/openapi":                   true, // common.Schema over a kube-openapi schema
	"k8s.io/apiserver/pkg/cel/library":                   true,
	"k8s.io/apiserver/pkg/cel/lazy":                      true,
	"k8s.io/apiserver/pkg/apis/cel":                      true,
	"k8s.io/apiserver/pkg/authorization/authorizer":      true,
	"k8s.io/apiserver/pkg/authentication/user":           true,
	"k8s.io/apiserver/pkg/authentication/serviceaccount": true,
	// kube's JWT authenticator (--authentication-config, --oidc-*; runtime/auth/oidc), its
	// config types and validation, and the leaf packages it imports: CEL environments and
	// feature gates, and the egress dialer it offers (no server framework comes with it).
	"k8s.io/apiserver/plugin/pkg/authenticator/token/oidc": true,
	"k8s.io/apiserver/pkg/apis/apiserver":                  true,
	"k8s.io/apiserver/pkg/apis/apiserver/v1":               true,
	"k8s.io/apiserver/pkg/apis/apiserver/v1alpha1":         true,
	"k8s.io/apiserver/pkg/apis/apiserver/v1beta1":          true,
	"k8s.io/apiserver/pkg/apis/apiserver/install":          true,
	"k8s.io/apiserver/pkg/apis/apiserver/validation":       true,
	"k8s.io/apiserver/pkg/authentication/authenticator":    true,
	"k8s.io/apiserver/pkg/authentication/cel":              true,
	"k8s.io/apiserver/pkg/authentication/token/jwt":        true,
	"k8s.io/apiserver/pkg/authorization/cel":               true,
	"k8s.io/apiserver/pkg/cel/environment":                 true,
	"k8s.io/apiserver/pkg/features":                        true,
	"k8s.io/apiserver/pkg/util/feature":                    true,
	"k8s.io/apiserver/pkg/util/compatibility":              true,
	"k8s.io/apiserver/pkg/server/egressselector":           true,
	"k8s.io/apiserver/pkg/server/egressselector/metrics":   true,
	// Encryption at rest (storage/encryption, storage/etcd3): kube's value transformers are
	// the reference for the wire format etcd holds; leaf libraries, free of the storage
	// framework. endpoints/request comes with them (their metrics read the RequestInfo;
	// it imports only authentication/user); apis/apiserver/v1 (above) holds the
	// EncryptionConfiguration's type.
	"k8s.io/apiserver/pkg/storage/value":                           true,
	"k8s.io/apiserver/pkg/storage/value/encrypt/aes":               true,
	"k8s.io/apiserver/pkg/storage/value/encrypt/identity":          true,
	"k8s.io/apiserver/pkg/storage/value/encrypt/secretbox":         true,
	"k8s.io/apiserver/pkg/storage/value/encrypt/envelope/kmsv2":    true,
	"k8s.io/apiserver/pkg/storage/value/encrypt/envelope/kmsv2/v2": true,
	"k8s.io/apiserver/pkg/storage/value/encrypt/envelope/metrics":  true,
	"k8s.io/apiserver/pkg/endpoints/request":                       true,
	// API Priority and Fairness (runtime/flowcontrol): kube's shuffle-sharding dealer (a leaf
	// importing only the standard library) and its default FlowSchemas and priority levels
	// (the bootstrap table; it imports k8s.io/api and authentication/user and serviceaccount).
	"k8s.io/apiserver/pkg/util/shufflesharding":       true,
	"k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap": true,
}

// TestRuntimeImports checks the dependency closure of every runtime package, as Go's own
// go/build deps_test does for the standard library.
func TestRuntimeImports(t *testing.T) {
	checked := 0
	for _, pkg := range goList(t, "-deps", "-test", "-json=ImportPath,Deps", "github.com/apigen-dev/apigen/runtime/...") {
		if !strings.HasPrefix(pkg.ImportPath, "github.com/apigen-dev/apigen/runtime") {
			continue
		}
		checked++
		for _, dep := range pkg.Deps {
			if allowed[dep] {
				continue
			}
			for _, bad := range forbidden {
				if dep == bad || strings.HasPrefix(dep, bad+"/") {
					t.Errorf("%s depends on %s, which the runtime must not import", pkg.ImportPath, dep)
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("go list returned no runtime packages")
	}
}

// listedPackage is what the tests read of `go list -json`.
type listedPackage struct {
	ImportPath, Dir        string
	GoFiles, Imports, Deps []string
}

// goList runs `go list` with args (which must include -json) and decodes its packages.
func goList(t *testing.T, args ...string) []listedPackage {
	t.Helper()
	out, err := exec.Command("go", append([]string{"list"}, args...)...).Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []listedPackage
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var pkg listedPackage
		if err := dec.Decode(&pkg); err == io.EOF {
			return pkgs
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, pkg)
	}
}
