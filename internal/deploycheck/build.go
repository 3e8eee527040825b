// Package deploycheck builds the deploy manifests of an apigen server (config/deploy, as
// `apigen init` writes them: a kustomize directory) with the kustomize library kubectl's
// apply -k uses, and checks them against the server they deploy: every kind an aggregated
// API server needs is there, the image is the kustomization's, ports agree, every flag of
// the container is one of runtime/app's and the flags validate, and the APIServices cover
// exactly the group versions the server serves. The tests of example-api and of package
// scaffold use it; every check reports a problem as one line, so that a test can show all of
// them and a test of the checks can look for one.
package deploycheck

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// Manifests are the objects kustomize builds from a deploy directory.
type Manifests struct {
	// Dir is the kustomize directory built.
	Dir string
	// Objects are the built objects, in kustomize's output order.
	Objects []*unstructured.Unstructured
	// Images are the images: entries of Dir's kustomization.yaml.
	Images []Image
}

// Image is one images: entry of a kustomization.
type Image struct {
	// Name is the image the manifests name, which the entry replaces.
	Name string `json:"name"`
	// NewName, NewTag and Digest are the replacement's repository, tag and digest; empty
	// ones keep Name's.
	NewName string `json:"newName"`
	NewTag  string `json:"newTag"`
	Digest  string `json:"digest"`
}

// Ref is the image reference the entry makes of its Name: NewName (or Name) with NewTag or
// Digest.
func (i Image) Ref() string {
	ref := i.Name
	if i.NewName != "" {
		ref = i.NewName
	}
	switch {
	case i.Digest != "":
		return ref + "@" + i.Digest
	case i.NewTag != "":
		return ref + ":" + i.NewTag
	}
	return ref
}

// Build runs kustomize build on dir (krusty with its default options, as `kubectl apply -k`)
// and reads dir's kustomization.yaml for its images. Errors: kustomize's, or an object that
// does not convert to JSON.
func Build(dir string) (*Manifests, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	resMap, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		return nil, fmt.Errorf("kustomize build %s: %w", dir, err)
	}
	m := &Manifests{Dir: dir}
	for _, res := range resMap.Resources() {
		obj, err := res.Map()
		if err != nil {
			return nil, fmt.Errorf("kustomize build %s: %s: %w", dir, res.CurId(), err)
		}
		m.Objects = append(m.Objects, &unstructured.Unstructured{Object: obj})
	}
	data, err := os.ReadFile(filepath.Join(dir, "kustomization.yaml"))
	if err != nil {
		return nil, err
	}
	var k struct {
		Images []Image `json:"images"`
	}
	if err := yaml.Unmarshal(data, &k); err != nil {
		return nil, fmt.Errorf("%s/kustomization.yaml: %w", dir, err)
	}
	m.Images = k.Images
	return m, nil
}

// objects returns the objects of kind (and apiVersion, when not ""), in order.
func (m *Manifests) objects(apiVersion, kind string) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, o := range m.Objects {
		if o.GetKind() == kind && (apiVersion == "" || o.GetAPIVersion() == apiVersion) {
			out = append(out, o)
		}
	}
	return out
}

// decode converts obj into the typed object into (through JSON, as the API server would
// read it); unknown fields are ignored.
func decode(obj *unstructured.Unstructured, into any) error {
	data, err := json.Marshal(obj.Object)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, into); err != nil {
		return fmt.Errorf("%s %s: %w", obj.GetKind(), obj.GetName(), err)
	}
	return nil
}
