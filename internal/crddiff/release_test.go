package crddiff

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// gatewayModule is the module whose release CRDs the extensions differential serves: the
// version the main module requires (go.mod), sigs.k8s.io/gateway-api v1.6.3.
const gatewayModule = "sigs.k8s.io/gateway-api"

// release is what the extensions differential reads of a Gateway API release.
type release struct {
	// dir is the module's directory in the module cache.
	dir string
	// crds are the CustomResourceDefinitions of config/crd/standard, sorted by name, and
	// their files as JSON (what a client sends to create them), by CRD name.
	crds []*apiextensionsv1.CustomResourceDefinition
	json map[string][]byte
	// examples are the documents of examples/standard, in file order.
	examples []example
}

// example is one YAML document of the release's examples.
type example struct {
	// file is the document's file, relative to the module; index its place in the file.
	file  string
	index int
	// object is the document as generic JSON, body as JSON text.
	object map[string]any
	body   []byte
}

// gatewayRelease reads the Gateway API release once per test binary; see readRelease.
var gatewayRelease = sync.OnceValues(func() (*release, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", gatewayModule).Output()
	if err != nil {
		return nil, fmt.Errorf("cannot find the module %s: %w", gatewayModule, err)
	}
	return readRelease(strings.TrimSpace(string(out)))
})

// readRelease reads config/crd/standard (every CustomResourceDefinition; other documents,
// such as the ValidatingAdmissionPolicy of gateway.networking.k8s.io_vap_safeupgrades.yaml,
// are skipped) and examples/standard (every YAML file, recursively) of the Gateway API module
// at dir. Errors: an unreadable file or document, or a CRD that does not decode strictly.
func readRelease(dir string) (*release, error) {
	r := &release{dir: dir, json: map[string][]byte{}}
	crdFiles, err := filepath.Glob(filepath.Join(dir, "config", "crd", "standard", "*.yaml"))
	if err != nil {
		return nil, err
	}
	for _, f := range crdFiles {
		docs, err := readDocuments(f)
		if err != nil {
			return nil, err
		}
		for _, d := range docs {
			var tm metav1.TypeMeta
			if err := yaml.Unmarshal(d, &tm); err != nil {
				return nil, fmt.Errorf("cannot read %s: %w", f, err)
			}
			if tm.Kind != "CustomResourceDefinition" {
				continue
			}
			crd := &apiextensionsv1.CustomResourceDefinition{}
			if err := yaml.UnmarshalStrict(d, crd); err != nil {
				return nil, fmt.Errorf("cannot read the CRD of %s: %w", f, err)
			}
			r.crds = append(r.crds, crd)
			r.json[crd.Name] = d
		}
	}
	sort.Slice(r.crds, func(i, j int) bool { return r.crds[i].Name < r.crds[j].Name })
	err = filepath.WalkDir(filepath.Join(dir, "examples", "standard"), func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || filepath.Ext(p) != ".yaml" {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		docs, err := readDocuments(p)
		for i, d := range docs {
			ex := example{file: rel, index: i, body: d}
			if err := yaml.Unmarshal(d, &ex.object); err != nil {
				return fmt.Errorf("cannot read document %d of %s: %w", i, rel, err)
			}
			r.examples = append(r.examples, ex)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(r.crds) == 0 {
		return nil, fmt.Errorf("no CRD in %s", filepath.Join(dir, "config", "crd", "standard"))
	}
	return r, nil
}

// readDocuments returns the non-empty documents of the YAML file path, each as JSON.
func readDocuments(path string) ([][]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	reader := utilyaml.NewYAMLReader(bufio.NewReader(f))
	var out [][]byte
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("cannot read %s: %w", path, err)
		}
		j, err := yaml.YAMLToJSON(doc)
		if err != nil {
			return nil, fmt.Errorf("cannot read %s: %w", path, err)
		}
		if s := strings.TrimSpace(string(j)); s != "null" && s != "" {
			out = append(out, j)
		}
	}
}

// servedKinds returns a kindUnderTest for every served version of every CRD of r, the
// oracle serving it from that CRD, in CRD and version order.
func (r *release) servedKinds() []kindUnderTest {
	var out []kindUnderTest
	for _, crd := range r.crds {
		for _, v := range crd.Spec.Versions {
			if v.Served {
				out = append(out, kindUnderTest{group: crd.Spec.Group, version: v.Name, kind: crd.Spec.Names.Kind, crd: crd})
			}
		}
	}
	return out
}

// examplesOf returns the examples of r whose apiVersion and kind are k's.
func (r *release) examplesOf(k kindUnderTest) []example {
	var out []example
	for _, ex := range r.examples {
		if ex.object["apiVersion"] == k.group+"/"+k.version && ex.object["kind"] == k.kind {
			out = append(out, ex)
		}
	}
	return out
}

// unservedExamples returns the examples of the CRDs' groups whose apiVersion and kind no
// served version of r's CRDs takes, as "file#index".
func (r *release) unservedExamples() []string {
	groups := map[string]bool{}
	served := map[string]bool{}
	for _, k := range r.servedKinds() {
		groups[k.group] = true
		served[k.group+"/"+k.version+" "+k.kind] = true
	}
	var out []string
	for _, ex := range r.examples {
		apiVersion, _ := ex.object["apiVersion"].(string)
		kind, _ := ex.object["kind"].(string)
		if group, _, ok := strings.Cut(apiVersion, "/"); ok && groups[group] && !served[apiVersion+" "+kind] {
			out = append(out, fmt.Sprintf("%s#%d", ex.file, ex.index))
		}
	}
	return out
}
