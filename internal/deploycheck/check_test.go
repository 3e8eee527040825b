package deploycheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// exampleDeploy is the example API's deploy directory, which the cases below break.
var exampleDeploy = filepath.Join("..", "..", "example-api", "config", "deploy")

// exampleServed are the group versions example-apiserver serves (example-api/config's test
// derives them from the server; here they are the input of the checks under test).
var exampleServed = []schema.GroupVersion{{Group: "db.example.com", Version: "v1"}, {Group: "db.example.com", Version: "v1alpha1"}}

// edited copies exampleDeploy to a temporary directory, replacing old with new in file
// (which must change it), and returns the directory.
func edited(t *testing.T, file, old, new string) string {
	t.Helper()
	return rewritten(t, file, func(s string) string { return strings.Replace(s, old, new, 1) })
}

// withoutDocument copies exampleDeploy to a temporary directory, dropping from file the YAML
// document that contains text, and returns the directory.
func withoutDocument(t *testing.T, file, text string) string {
	t.Helper()
	return rewritten(t, file, func(s string) string {
		var kept []string
		for _, doc := range strings.Split(s, "\n---\n") {
			if !strings.Contains(doc, text) {
				kept = append(kept, doc)
			}
		}
		return strings.Join(kept, "\n---\n")
	})
}

// rewritten copies exampleDeploy to a temporary directory, with file rewritten by edit
// (which must change it), and returns the directory.
func rewritten(t *testing.T, file string, edit func(string) string) string {
	t.Helper()
	dir := t.TempDir()
	entries, err := os.ReadDir(exampleDeploy)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(exampleDeploy, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if e.Name() == file {
			changed := edit(string(data))
			if changed == string(data) {
				t.Fatalf("the edit does not change %s", file)
			}
			data = []byte(changed)
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestExampleDeployPasses(t *testing.T) {
	m, err := Build(exampleDeploy)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range m.Check(exampleServed) {
		t.Error(p)
	}
	for _, p := range CheckDockerfile(filepath.Join(exampleDeploy, "Dockerfile"), filepath.Join("..", "..")) {
		t.Errorf("Dockerfile: %s", p)
	}
}

// TestCheckFindsBrokenManifests: each broken copy of the example's manifests is reported
// with the problem named.
func TestCheckFindsBrokenManifests(t *testing.T) {
	for _, tc := range []struct {
		name, file, old, new string
		served               []schema.GroupVersion // exampleServed when nil
		want                 string
	}{
		{name: "unknown flag", file: "deployment.yaml", old: "- --secure-port=6443\n", new: "- --secure-port=6443\n            - --etcd-server=http://etcd:2379\n",
			want: `--etcd-server is not a flag of the server`},
		{name: "flag value the server refuses", file: "deployment.yaml", old: "--bind-address=0.0.0.0", new: "--bind-address=everywhere",
			want: `--bind-address "everywhere" is not an IP address`},
		{name: "loopback address", file: "deployment.yaml", old: "--bind-address=0.0.0.0", new: "--bind-address=127.0.0.1",
			want: "cannot reach a loopback address"},
		{name: "container port", file: "deployment.yaml", old: "containerPort: 6443", new: "containerPort: 8443",
			want: "has no containerPort 6443 (--secure-port)"},
		{name: "secure port", file: "deployment.yaml", old: "--secure-port=6443", new: "--secure-port=8443",
			want: "has no containerPort 8443 (--secure-port)"},
		{name: "service target port", file: "service.yaml", old: "targetPort: https", new: "targetPort: 8443",
			want: "targetPort 8443 is not --secure-port=6443"},
		{name: "service port", file: "service.yaml", old: "port: 443", new: "port: 8443",
			want: "Service example-apiserver has no port 443"},
		{name: "probe", file: "deployment.yaml", old: "path: /readyz", new: "path: /healthz",
			want: "readinessProbe: want GET /readyz over HTTPS on port 6443"},
		{name: "group version the manifests miss", file: "apis.yaml", old: "# caBundle: set by ca-bundle.yaml", new: "# caBundle: set elsewhere",
			served: append(exampleServed[:2:2], schema.GroupVersion{Group: "db.example.com", Version: "v2"}),
			want:   "no APIService for db.example.com/v2, which the server serves"},
		{name: "APIService of an unserved version", file: "apis.yaml", old: "version: v1alpha1", new: "version: v1beta1",
			want: "registers db.example.com/v1beta1, which the server does not serve"},
		{name: "APIService to another Service", file: "apis.yaml", old: "name: example-apiserver\n    port: 443", new: "name: other\n    port: 443",
			want: "sends to the Service example-system/other"},
		{name: "image", file: "deployment.yaml", old: "image: example-apiserver", new: "image: example-apiserver-old",
			want: `runs image "example-apiserver-old", not the kustomization's "registry.example.com/example-apiserver:latest"`},
		{name: "no etcd", file: "kustomization.yaml", old: "  - etcd.yaml\n", new: "",
			want: "no StatefulSet etcd in example-system"},
		{name: "embedded etcd", file: "deployment.yaml", old: "            - --etcd-servers=http://etcd.example-system.svc:2379\n", new: "",
			want: "no --etcd-servers"},
		{name: "etcd elsewhere", file: "deployment.yaml", old: "--etcd-servers=http://etcd.example-system.svc:2379", new: "--etcd-servers=http://etcd.default.svc:2379",
			want: "does not name a port of the Service etcd.example-system.svc"},
		{name: "file outside mounts", file: "deployment.yaml", old: "--tls-cert-file=/etc/example-apiserver/tls/tls.crt", new: "--tls-cert-file=/tls.crt",
			want: "--tls-cert-file=/tls.crt is under no volume mount"},
		{name: "no front-proxy lookup", file: "deployment.yaml", old: "- --secure-port=6443", new: "- --secure-port=6443\n            - --authentication-skip-lookup",
			want: "--authentication-skip-lookup: the aggregator's front-proxy requests would not be trusted"},
		{name: "auth reader outside kube-system", file: "rbac.yaml", old: "namespace: kube-system", new: "namespace: example-system",
			want: "no RoleBinding in kube-system"},
		{name: "auth delegator", file: "rbac.yaml", old: "name: system:auth-delegator", new: "name: system:basic-user",
			want: "to the ClusterRole system:auth-delegator"},
		{name: "disruption budget", file: "deployment.yaml", old: "minAvailable: 1", new: "minAvailable: 2",
			want: "want minAvailable between 1 and the 2 replicas"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Build(edited(t, tc.file, tc.old, tc.new))
			if err != nil {
				t.Fatal(err)
			}
			served := tc.served
			if served == nil {
				served = exampleServed
			}
			problems := m.Check(served)
			found := false
			for _, p := range problems {
				found = found || strings.Contains(p, tc.want)
			}
			if !found {
				t.Errorf("no problem %q reported; got:\n%s", tc.want, strings.Join(problems, "\n"))
			}
		})
	}
}

// TestCheckFindsMissingAPIService: the manifests without the APIService of v1alpha1, which
// the server serves, are reported.
func TestCheckFindsMissingAPIService(t *testing.T) {
	m, err := Build(withoutDocument(t, "apis.yaml", "name: v1alpha1.db.example.com"))
	if err != nil {
		t.Fatal(err)
	}
	problems := m.Check(exampleServed)
	if want := "no APIService for db.example.com/v1alpha1, which the server serves"; !strings.Contains(strings.Join(problems, "\n"), want) {
		t.Errorf("no problem %q reported; got:\n%s", want, strings.Join(problems, "\n"))
	}
}

func TestCheckDockerfileFindsProblems(t *testing.T) {
	for _, tc := range []struct{ old, new, want string }{
		{"./example-api/cmd/example-apiserver", "./example-api/cmd/nothing", "not a main package"},
		{"USER 65532:65532", "USER root", `USER "root", want 65532:65532`},
		{"FROM golang:1.26 AS builder", "FROM golang:1.25 AS builder", "a named golang:1.26 builder"},
		{`ENTRYPOINT ["/example-apiserver"]`, `ENTRYPOINT ["/bin/sh"]`, "ENTRYPOINT"},
	} {
		dir := edited(t, "Dockerfile", tc.old, tc.new)
		problems := CheckDockerfile(filepath.Join(dir, "Dockerfile"), filepath.Join("..", ".."))
		if !strings.Contains(strings.Join(problems, "\n"), tc.want) {
			t.Errorf("%s -> %s: no problem %q reported; got %q", tc.old, tc.new, tc.want, problems)
		}
	}
}
