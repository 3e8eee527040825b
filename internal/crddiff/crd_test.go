package crddiff

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/controller-tools/pkg/crd"
	"sigs.k8s.io/controller-tools/pkg/genall"
	"sigs.k8s.io/controller-tools/pkg/loader"
	"sigs.k8s.io/yaml"
)

// generatedCRDs runs controller-gen's CRD generator once per test binary on the packages of
// every kind of kinds, in one load (their dependencies are type-checked once); see
// controllerGen.
var generatedCRDs = sync.OnceValues(func() (map[string]*apiextensionsv1.CustomResourceDefinition, error) {
	var pkgs []string
	seen := map[string]bool{}
	for _, k := range kinds {
		if !seen[k.pkg] {
			seen[k.pkg] = true
			pkgs = append(pkgs, k.pkg)
		}
	}
	return controllerGen(pkgs...)
})

// memoryOutput is a genall.OutputRule that keeps every file a generator writes, by name.
type memoryOutput struct {
	mu    sync.Mutex
	files map[string]*bytes.Buffer
}

// Open returns a writer into a new in-memory file named path.
func (m *memoryOutput) Open(_ *loader.Package, path string) (io.WriteCloser, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	buf := &bytes.Buffer{}
	m.files[path] = buf
	return nopCloser{buf}, nil
}

// nopCloser adds a Close that does nothing to a writer.
type nopCloser struct{ io.Writer }

// Close does nothing.
func (nopCloser) Close() error { return nil }

// controllerGen runs controller-tools v0.23.0's CRD generator (crd.Generator, as
// `controller-gen crd paths=...` with its default options: apiextensions.k8s.io/v1, no
// description limit) as a library on the Go packages pkgs and returns the CRDs it writes, by
// "<group>/<Kind>". Errors of the generator (what controller-gen prints before exiting 1)
// are returned as one error.
func controllerGen(pkgs ...string) (map[string]*apiextensionsv1.CustomResourceDefinition, error) {
	var gen genall.Generator = crd.Generator{}
	rt, err := genall.Generators{&gen}.ForRoots(pkgs...)
	if err != nil {
		return nil, fmt.Errorf("cannot load %v for controller-gen: %w", pkgs, err)
	}
	out := &memoryOutput{files: map[string]*bytes.Buffer{}}
	var errs bytes.Buffer
	rt.OutputRules = genall.OutputRules{Default: out}
	rt.ErrorWriter = &errs
	if failed := rt.Run(); failed {
		return nil, fmt.Errorf("controller-gen failed: %s", strings.TrimSpace(errs.String()))
	}
	crds := map[string]*apiextensionsv1.CustomResourceDefinition{}
	for name, buf := range out.files {
		c := &apiextensionsv1.CustomResourceDefinition{}
		if err := yaml.UnmarshalStrict(buf.Bytes(), c); err != nil {
			return nil, fmt.Errorf("cannot read controller-gen's %s: %w", name, err)
		}
		crds[c.Spec.Group+"/"+c.Spec.Names.Kind] = c
	}
	return crds, nil
}
