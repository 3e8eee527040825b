package scaffold_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/transport"
	clientv3 "go.etcd.io/etcd/client/v3"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// moduleDir returns the directory of module@version (gatewayAPI) in the module cache, as
// `go mod download -json` reports it (offline when the cache has it).
func moduleDir(t *testing.T, modVersion string) string {
	t.Helper()
	out, err := tryIn(checkout(t), 5*time.Minute, "go", "mod", "download", "-json", modVersion)
	var info struct{ Dir, Error string }
	if jerr := json.Unmarshal([]byte(out), &info); err != nil || jerr != nil || info.Dir == "" {
		t.Fatalf("go mod download -json %s: %v %s\n%s", modVersion, err, info.Error, out)
	}
	return info.Dir
}

// gatewayPackages are the packages of sigs.k8s.io/gateway-api the standard channel's types
// live in, as directories below apis/.
var gatewayPackages = []string{"v1", "v1beta1"}

// portGatewayTypes copies the hand-written .go files (no zz_generated files, no tests) of
// gatewayPackages from the module in gw to repo's apis/gateway/<version>, rewriting only the
// import paths sigs.k8s.io/gateway-api/apis/<version> to apisPath/<version>, and writes the
// server's groups.go naming the group's install package (apigen create api maintains that
// file for the groups it scaffolds). A file importing another package of gateway-api fails t.
func portGatewayTypes(t *testing.T, gw, repo, apisPath string) {
	t.Helper()
	const from = "sigs.k8s.io/gateway-api/apis/"
	for _, v := range gatewayPackages {
		src, dst := filepath.Join(gw, "apis", v), filepath.Join(repo, "apis", "gateway", v)
		if err := os.MkdirAll(dst, 0o755); err != nil {
			t.Fatal(err)
		}
		files, err := filepath.Glob(filepath.Join(src, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no Go files in %s: %v", src, err)
		}
		for _, f := range files {
			base := filepath.Base(f)
			if strings.HasPrefix(base, "zz_generated") || strings.HasSuffix(base, "_test.go") {
				continue
			}
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			text := string(data)
			for _, other := range gatewayPackages {
				text = strings.ReplaceAll(text, `"`+from+other+`"`, `"`+apisPath+"/"+other+`"`)
			}
			if strings.Contains(text, `"sigs.k8s.io/gateway-api/`) {
				t.Fatalf("%s imports a package of gateway-api outside %v: port it too", f, gatewayPackages)
			}
			if err := os.WriteFile(filepath.Join(dst, base), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	groups := fmt.Sprintf(`package main

import (
	"github.com/apigen-dev/apigen/runtime/app"

	gatewayinstall "%s/v1/install"
)

// groups builds every API group the server serves: Gateway API's, whose install package
// apigen generate writes below its most preferred version.
var groups = []app.GroupBuilder{
	gatewayinstall.NewAPIGroupInfo,
}
`, apisPath)
	if err := os.WriteFile(filepath.Join(repo, "cmd", "gateway-apiserver", "groups.go"), []byte(groups), 0o644); err != nil {
		t.Fatal(err)
	}
}

// crd is what the test reads of a CustomResourceDefinition of config/crd/standard.
type crd struct {
	Kind string `json:"kind"`
	Spec struct {
		Group string `json:"group"`
		Scope string `json:"scope"`
		Names struct {
			Kind   string `json:"kind"`
			Plural string `json:"plural"`
		} `json:"names"`
		Versions []struct {
			Name         string `json:"name"`
			Served       bool   `json:"served"`
			Storage      bool   `json:"storage"`
			Subresources struct {
				Status *struct{} `json:"status"`
			} `json:"subresources"`
		} `json:"versions"`
	} `json:"spec"`
}

// storageVersion is the name of the CRD's storage version.
func (c *crd) storageVersion() string {
	for _, v := range c.Spec.Versions {
		if v.Storage {
			return v.Name
		}
	}
	return ""
}

// standardChannel returns the CRDs of gw's config/crd/standard, by kind.
func standardChannel(t *testing.T, gw string) map[string]*crd {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(gw, "config", "crd", "standard", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	channel := map[string]*crd{}
	for _, f := range files {
		for _, doc := range readDocuments(t, f) {
			data, _ := json.Marshal(doc)
			c := &crd{}
			if err := json.Unmarshal(data, c); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if c.Kind == "CustomResourceDefinition" && c.Spec.Group == gatewayGroup {
				channel[c.Spec.Names.Kind] = c
			}
		}
	}
	if len(channel) == 0 {
		t.Fatalf("no CRD of %s in %s", gatewayGroup, filepath.Join(gw, "config", "crd", "standard"))
	}
	return channel
}

// exampleFiles returns every YAML file below gw's examples/standard, sorted, the
// 0-namespaces.yaml files first.
func exampleFiles(t *testing.T, gw string) []string {
	t.Helper()
	var namespaces, others []string
	err := filepath.WalkDir(filepath.Join(gw, "examples", "standard"), func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() || filepath.Ext(p) != ".yaml":
		case d.Name() == "0-namespaces.yaml":
			namespaces = append(namespaces, p)
		default:
			others = append(others, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(namespaces)
	sort.Strings(others)
	return append(namespaces, others...)
}

// readDocuments returns the non-empty YAML documents of file, decoded as JSON would be.
func readDocuments(t *testing.T, file string) []map[string]any {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := utilyaml.NewYAMLReader(bufio.NewReader(f))
	var docs []map[string]any
	for {
		data, err := r.Read()
		if errors.Is(err, io.EOF) {
			return docs
		}
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		var doc map[string]any
		if err := yaml.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if len(doc) > 0 {
			docs = append(docs, doc)
		}
	}
}

// writeDocuments writes docs as one multi-document YAML file in a new temporary directory
// and returns its path.
func writeDocuments(t *testing.T, docs []map[string]any) string {
	t.Helper()
	var buf bytes.Buffer
	for _, d := range docs {
		data, err := yaml.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		buf.WriteString("---\n")
		buf.Write(data)
	}
	p := filepath.Join(t.TempDir(), "documents.yaml")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// normalize returns v as encoding/json decodes its JSON (numbers as float64).
func normalize(t *testing.T, v any) any {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// subset returns where got lacks or differs from what want sets: every key of a want object
// must be in got's, with a value subset of it; lists must have want's length, item by item;
// anything else must be equal. at is the path of want in messages.
func subset(want, got any, at string) []string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return []string{fmt.Sprintf("%s: %v, want an object", at, got)}
		}
		var diffs []string
		for k, v := range w {
			gv, ok := g[k]
			if !ok {
				diffs = append(diffs, at+"."+k+": missing")
				continue
			}
			diffs = append(diffs, subset(v, gv, at+"."+k)...)
		}
		sort.Strings(diffs)
		return diffs
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return []string{fmt.Sprintf("%s: %v, want %v", at, got, want)}
		}
		var diffs []string
		for i := range w {
			diffs = append(diffs, subset(w[i], g[i], fmt.Sprintf("%s[%d]", at, i))...)
		}
		return diffs
	}
	if !reflect.DeepEqual(want, got) {
		return []string{fmt.Sprintf("%s: %v, want %v", at, got, want)}
	}
	return nil
}

// setDiff lists the members of want missing from got ("-") and those of got not in want
// ("+"), sorted; "" when the sets are equal.
func setDiff(want, got map[string]bool) string {
	var lines []string
	for k := range want {
		if !got[k] {
			lines = append(lines, "-"+k)
		}
	}
	for k := range got {
		if !want[k] {
			lines = append(lines, "+"+k)
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// mapDiff lists the keys whose values differ between a and b ("-" a's, "+" b's), sorted;
// "" when the maps are equal.
func mapDiff(a, b map[string]string) string {
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	var lines []string
	for k := range keys {
		av, aok := a[k]
		bv, bok := b[k]
		if av != bv || aok != bok {
			lines = append(lines, fmt.Sprintf("-%s: %s\n+%s: %s", k, av, k, bv))
		}
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// etcdFlag matches the etcdctl flags a server's readiness line names for its embedded etcd.
var etcdFlag = regexp.MustCompile(`--(endpoints|cacert|cert|key)=([^\s)]+)`)

// etcdClient connects to srv's embedded etcd, as the etcdctl command its readiness line
// prints would, and closes the client at cleanup.
func etcdClient(t *testing.T, srv *server) *clientv3.Client {
	t.Helper()
	flags := map[string]string{}
	for _, m := range etcdFlag.FindAllStringSubmatch(srv.ready, -1) {
		flags[m[1]] = m[2]
	}
	tlsInfo := transport.TLSInfo{CertFile: flags["cert"], KeyFile: flags["key"], TrustedCAFile: flags["cacert"]}
	tlsConfig, err := tlsInfo.ClientConfig()
	if err != nil || flags["endpoints"] == "" {
		t.Fatalf("cannot read the etcd endpoint and client certificate from %q: %v", srv.ready, err)
	}
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{flags["endpoints"]}, TLS: tlsConfig, DialTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}
